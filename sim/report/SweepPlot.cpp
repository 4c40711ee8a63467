#include "report/SweepPlot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "report/TimelineSvg.hpp"

namespace clearfog::report {
namespace {

constexpr double kWidth = 800;    // px
constexpr double kHeight = 500;   // px
constexpr double kLeft = 90;      // px, room for y tick labels
constexpr double kRight = 200;    // px, room for the legend
constexpr double kTop = 50;       // px, title
constexpr double kBottom = 70;    // px, x tick labels and axis label
constexpr std::array<const char*, 8> kColours = {"#4c78a8", "#f58518", "#54a24b", "#e45756",
                                                 "#b279a2", "#72b7b2", "#9d755d", "#eeca3b"};

std::string number_label(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e6 || a < 1e-3) return fmt::format("{:.3g}", v);
  return fmt::format("{:g}", v);
}

}  // namespace

std::string line_plot_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                          const std::vector<std::string>& x, const std::vector<PlotSeries>& series) {
  double y_max = 0;
  for (const auto& s : series)
    for (const auto& v : s.y)
      if (v) y_max = std::max(y_max, *v);
  const double tick = nice_tick(y_max > 0 ? y_max : 1, 6);
  const double top_value = tick * std::ceil((y_max > 0 ? y_max : 1) / tick);
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  auto px = [&](std::size_t i) { return kLeft + plot_w * (static_cast<double>(i) + 0.5) / static_cast<double>(std::max<std::size_t>(x.size(), 1)); };
  auto py = [&](double v) { return kTop + plot_h * (1 - v / top_value); };

  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} "
                   "{1:.0f}\" font-family=\"sans-serif\">\n",
                   kWidth, kHeight);
  o += fmt::format("<rect x=\"0\" y=\"0\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"white\"/>\n", kWidth, kHeight);
  o += fmt::format("<text x=\"{:.0f}\" y=\"28\" font-size=\"16\" font-weight=\"bold\">{}</text>\n", kLeft, xml_escape(title));
  // Grid and y ticks.
  for (int k = 0; k * tick <= top_value * (1 + 1e-9); ++k) {
    const double y = py(k * tick);
    o += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"#dddddd\"/>\n", kLeft, y,
                     kLeft + plot_w, y);
    o += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"11\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>\n",
                     kLeft - 6, y, number_label(k * tick));
  }
  o += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{0:.2f}\" y2=\"{2:.2f}\" stroke=\"black\"/>\n", kLeft, kTop,
                   kTop + plot_h);
  o += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"black\"/>\n", kLeft, kTop + plot_h,
                   kLeft + plot_w, kTop + plot_h);
  for (std::size_t i = 0; i < x.size(); ++i) {
    o += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{0:.2f}\" y2=\"{2:.2f}\" stroke=\"black\"/>\n", px(i),
                     kTop + plot_h, kTop + plot_h + 5);
    o += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n", px(i),
                     kTop + plot_h + 20, xml_escape(x[i]));
  }
  o += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"13\" text-anchor=\"middle\">{}</text>\n",
                   kLeft + plot_w / 2, kHeight - 20, xml_escape(x_label));
  o += fmt::format("<text x=\"18\" y=\"{0:.2f}\" font-size=\"13\" text-anchor=\"middle\" transform=\"rotate(-90 18 {0:.2f})\">{1}</text>\n",
                   kTop + plot_h / 2, xml_escape(y_label));
  // Series: a polyline through consecutive values (a gap breaks it), a marker at each value.
  for (std::size_t s = 0; s < series.size(); ++s) {
    const char* colour = kColours[s % kColours.size()];
    std::string points;
    auto flush = [&] {
      if (points.find(' ') != std::string::npos)
        o += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", points, colour);
      points.clear();
    };
    for (std::size_t i = 0; i < x.size() && i < series[s].y.size(); ++i) {
      if (!series[s].y[i]) {
        flush();
        continue;
      }
      points += fmt::format("{}{:.2f},{:.2f}", points.empty() ? "" : " ", px(i), py(*series[s].y[i]));
    }
    flush();
    for (std::size_t i = 0; i < x.size() && i < series[s].y.size(); ++i)
      if (series[s].y[i])
        o += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"4\" fill=\"{}\"><title>{}</title></circle>\n", px(i),
                         py(*series[s].y[i]), colour, xml_escape(fmt::format("{} = {}: {}", x_label, x[i], number_label(*series[s].y[i]))));
    if (!series[s].name.empty()) {
      const double ly = kTop + 10 + 20 * static_cast<double>(s);
      o += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{2:.2f}\" y2=\"{1:.2f}\" stroke=\"{3}\" stroke-width=\"2\"/>\n",
                       kLeft + plot_w + 16, ly, kLeft + plot_w + 40, colour);
      o += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"11\" dominant-baseline=\"middle\">{}</text>\n",
                       kLeft + plot_w + 46, ly, xml_escape(series[s].name));
    }
  }
  o += "</svg>\n";
  return o;
}

}  // namespace clearfog::report
