#include "report/SweepPlot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <cmath>

#include "report/PlotFrame.hpp"
#include "report/TimelineSvg.hpp"

namespace clearfog::report {
namespace {

constexpr double kMinWidth = 800;    // px
constexpr double kMinHeight = 500;   // px
constexpr PlotBox kLineBox{.width = 510, .height = 380};
constexpr double kLegendText = 46;   // px from the plot's right edge to a legend entry's text
// Widest average glyph of a sans-serif font, as a share of the font size (DejaVu Sans ~0.55-0.6).
constexpr double kGlyphEm = 0.62;
constexpr double kLegendFont = 11;   // px
constexpr std::size_t kColourCount = std::size(kPlotColours);
constexpr const char* kOomLegend = "OOM: memory estimate exceeds the device";

bool is_oom(const PlotSeries& s, std::size_t i) { return i < s.oom.size() && s.oom[i]; }

/// The legend's entries: every named series, then the OOM ring when a point is OOM.
std::vector<std::string> legend_entries(const std::vector<PlotSeries>& series) {
  std::vector<std::string> entries;
  bool oom = false;
  for (const auto& s : series) {
    if (!s.name.empty()) entries.push_back(s.name);
    oom = oom || std::find(s.oom.begin(), s.oom.end(), true) != s.oom.end();
  }
  if (oom) entries.emplace_back(kOomLegend);
  return entries;
}

/// Where things go: a fixed plot area, the picture widened and grown to hold the title and legend.
struct Frame {
  double width = kMinWidth;
  double height = kMinHeight;
  LinearAxis y{1};
  std::size_t categories = 1;

  [[nodiscard]] double px(std::size_t i) const {
    return kLineBox.left + kLineBox.width * (static_cast<double>(i) + 0.5) / static_cast<double>(categories);
  }
  [[nodiscard]] double py(double v) const { return y_px(kLineBox, y, v); }
  [[nodiscard]] double legend_y(std::size_t row) const {
    return kLineBox.top + 10 + kPlotLegendRow * static_cast<double>(row);
  }
};

Frame make_frame(const std::string& title, const std::vector<std::string>& x, const std::vector<PlotSeries>& series) {
  Frame f;
  double y_max = 0;
  for (const auto& s : series)
    for (const auto& v : s.y)
      if (v) y_max = std::max(y_max, *v);
  f.y = LinearAxis(y_max);
  f.categories = std::max<std::size_t>(x.size(), 1);
  const auto entries = legend_entries(series);
  double legend_w = 0;
  for (const auto& e : entries) legend_w = std::max(legend_w, text_width_px(e, kLegendFont));
  f.width = std::max({kMinWidth, kLineBox.right() + kLegendText + legend_w + kPlotMargin,
                      kLineBox.left + text_width_px(title, kPlotTitleFont) + kPlotMargin});
  f.height = std::max(kMinHeight, f.legend_y(entries.size()) + kPlotMargin);
  return f;
}

/// The y grid, the frame's left and bottom lines, a tick and label per category, the axis labels.
std::string axes_svg(const Frame& f, const std::string& x_label, const std::string& y_label,
                     const std::vector<std::string>& x) {
  const PlotBox& b = kLineBox;
  std::string o = y_grid_svg(b, f.y);
  o += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{0:.2f}\" y2=\"{2:.2f}\" stroke=\"black\"/>\n", b.left, b.top,
                   b.base());
  o += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"black\"/>\n", b.left, b.base(),
                   b.right(), b.base());
  for (std::size_t i = 0; i < x.size(); ++i) {
    o += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{0:.2f}\" y2=\"{2:.2f}\" stroke=\"black\"/>\n", f.px(i),
                     b.base(), b.base() + 5);
    o += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n", f.px(i),
                     b.base() + 20, xml_escape(x[i]));
  }
  return o + axis_labels_svg(b, x_label, y_label);
}

/// A polyline through consecutive points that fit (a gap or an OOM point breaks it), a filled marker
/// at each, a hollow red ring at each OOM point.
std::string series_svg(const Frame& f, const PlotSeries& s, const char* colour, const std::string& x_label,
                       const std::vector<std::string>& x) {
  std::string o;
  std::string points;
  auto flush = [&] {
    if (points.find(' ') != std::string::npos)
      o += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", points, colour);
    points.clear();
  };
  for (std::size_t i = 0; i < x.size() && i < s.y.size(); ++i) {
    if (!s.y[i] || is_oom(s, i)) {
      flush();
      continue;
    }
    points += fmt::format("{}{:.2f},{:.2f}", points.empty() ? "" : " ", f.px(i), f.py(*s.y[i]));
  }
  flush();
  for (std::size_t i = 0; i < x.size() && i < s.y.size(); ++i) {
    if (!s.y[i]) continue;
    const bool oom = is_oom(s, i);
    const auto tip = fmt::format("{} = {}: {}{}", x_label, x[i], tick_label(*s.y[i]), oom ? " (OOM: does not fit)" : "");
    if (oom)
      o += fmt::format("<circle class=\"oom\" cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"5\" fill=\"white\" stroke=\"{}\" "
                       "stroke-width=\"2\"><title>{}</title></circle>\n",
                       f.px(i), f.py(*s.y[i]), kOomColour, xml_escape(tip));
    else
      o += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"4\" fill=\"{}\"><title>{}</title></circle>\n", f.px(i),
                       f.py(*s.y[i]), colour, xml_escape(tip));
  }
  return o;
}

std::string legend_svg(const Frame& f, const std::vector<PlotSeries>& series) {
  std::string o;
  const double x0 = kLineBox.right() + 16;
  const double text_x = kLineBox.right() + kLegendText;
  std::size_t row = 0;
  const auto text = [&](const std::string& label) {
    return fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"{:.0f}\" dominant-baseline=\"middle\">{}</text>\n",
                       text_x, f.legend_y(row), kLegendFont, xml_escape(label));
  };
  for (std::size_t s = 0; s < series.size(); ++s) {
    if (series[s].name.empty()) continue;
    o += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{2:.2f}\" y2=\"{1:.2f}\" stroke=\"{3}\" stroke-width=\"2\"/>\n",
                     x0, f.legend_y(row), x0 + 24, kPlotColours[s % kColourCount]);
    o += text(series[s].name);
    ++row;
  }
  const auto entries = legend_entries(series);
  if (!entries.empty() && entries.back() == kOomLegend) {
    o += fmt::format("<circle class=\"oom\" cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"5\" fill=\"white\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                     x0 + 12, f.legend_y(row), kOomColour);
    o += text(kOomLegend);
  }
  return o;
}

}  // namespace

std::string tick_label(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e6 || a < 1e-3) return fmt::format("{:.3g}", v);
  return fmt::format("{:g}", v);
}

double text_width_px(const std::string& text, double font_px) {
  return static_cast<double>(text.size()) * font_px * kGlyphEm;
}

std::string line_plot_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                          const std::vector<std::string>& x, const std::vector<PlotSeries>& series) {
  const Frame f = make_frame(title, x, series);
  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + plot_svg_open(f.width, f.height, kLineBox, title);
  o += axes_svg(f, x_label, y_label, x);
  for (std::size_t s = 0; s < series.size(); ++s) o += series_svg(f, series[s], kPlotColours[s % kColourCount], x_label, x);
  o += legend_svg(f, series);
  o += "</svg>\n";
  return o;
}

}  // namespace clearfog::report
