#include "report/ParetoPlot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/PlotFrame.hpp"
#include "report/SweepPlot.hpp"
#include "report/TimelineSvg.hpp"

namespace clearfog::report {
namespace {

constexpr PlotBox kScatterBox{.width = 560, .height = 360};
constexpr double kScatterLegendGap = 24;   // px between the plot and the legend
constexpr double kScatterLegendFont = 12;  // px
constexpr double kLimitReach = 4;          // an x limit further than this times the largest x is left out
constexpr const char* kDotColour = "#4c78a8";
constexpr const char* kFrontColour = "#f58518";

bool dominates(const ScatterPoint& a, const ScatterPoint& b, bool y_higher_better) {
  const bool y_no_worse = y_higher_better ? a.y >= b.y : a.y <= b.y;
  const bool y_better = y_higher_better ? a.y > b.y : a.y < b.y;
  return a.x <= b.x && y_no_worse && (a.x < b.x || y_better);
}

/// The y grid, vertical grid lines at the x ticks with their labels, the frame, the axis labels.
std::string scatter_axes_svg(const LinearAxis& sx, const LinearAxis& sy, const std::string& x_label,
                             const std::string& y_label) {
  const PlotBox& b = kScatterBox;
  const auto px = [&](double v) { return b.left + b.width * sx.fraction(v); };
  std::string o = y_grid_svg(b, sy);
  for (int k = 0; k * sx.tick <= sx.top * (1 + 1e-9); ++k) {
    o += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{0:.2f}\" y2=\"{2:.2f}\" stroke=\"#dddddd\"/>\n",
                     px(k * sx.tick), b.top, b.base());
    o += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n",
                     px(k * sx.tick), b.base() + 18, tick_label(k * sx.tick));
  }
  o += fmt::format("<polyline points=\"{0:.2f},{1:.2f} {0:.2f},{2:.2f} {3:.2f},{2:.2f}\" fill=\"none\" stroke=\"black\"/>\n",
                   b.left, b.top, b.base(), b.right());
  return o + axis_labels_svg(b, x_label, y_label);
}

std::vector<std::pair<std::string, std::string>> scatter_legend_entries(const std::vector<ScatterPoint>& points) {
  std::vector<std::pair<std::string, std::string>> entries = {{"configuration", kDotColour},
                                                              {"Pareto front", kFrontColour}};
  if (std::any_of(points.begin(), points.end(), [](const auto& p) { return p.oom; }))
    entries.emplace_back("OOM: memory estimate exceeds the device", kOomColour);
  return entries;
}

std::string scatter_legend_svg(const std::vector<ScatterPoint>& points) {
  const double x = kScatterBox.right() + kScatterLegendGap;
  std::string o;
  double y = kScatterBox.top + 10;
  for (const auto& [label, colour] : scatter_legend_entries(points)) {
    if (colour == std::string(kOomColour))
      o += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"5\" fill=\"white\" stroke=\"{}\" stroke-width=\"2\"/>\n", x + 6,
                       y, colour);
    else
      o += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"5\" fill=\"{}\"/>\n", x + 6, y, colour);
    o += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"{:.0f}\" dominant-baseline=\"middle\">{}</text>\n", x + 18,
                     y, kScatterLegendFont, xml_escape(label));
    y += kPlotLegendRow;
  }
  return o;
}

}  // namespace

std::vector<std::size_t> pareto_front(const std::vector<ScatterPoint>& points, bool y_higher_better) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].oom) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < points.size() && !dominated; ++j) {
      if (j == i || points[j].oom) continue;
      const bool tie = points[j].x == points[i].x && points[j].y == points[i].y;
      dominated = dominates(points[j], points[i], y_higher_better) || (tie && j < i);
    }
    if (!dominated) front.push_back(i);
  }
  std::stable_sort(front.begin(), front.end(), [&](auto a, auto b) { return points[a].x < points[b].x; });
  return front;
}

std::string pareto_plot_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                            const std::vector<ScatterPoint>& points, bool y_higher_better,
                            const std::optional<XLimit>& x_limit) {
  double x_max = 0, y_max = 0, legend_w = 0;
  for (const auto& p : points) {
    x_max = std::max(x_max, p.x);
    y_max = std::max(y_max, p.y);
  }
  const auto limit = x_limit && x_limit->x <= kLimitReach * x_max ? x_limit : std::nullopt;
  if (limit) x_max = std::max(x_max, limit->x);
  for (const auto& e : scatter_legend_entries(points))
    legend_w = std::max(legend_w, text_width_px(e.first, kScatterLegendFont));
  const PlotBox& b = kScatterBox;
  const LinearAxis sx(x_max), sy(y_max);
  const double width = std::max(b.right() + kScatterLegendGap + 18 + legend_w + kPlotMargin,
                                b.left + text_width_px(title, kPlotTitleFont) + kPlotMargin);
  const double height = b.base() + b.bottom;
  const auto px = [&](double v) { return b.left + b.width * sx.fraction(v); };
  const auto py = [&](double v) { return y_px(b, sy, v); };

  std::string o = plot_svg_open(width, height, b, title) + scatter_axes_svg(sx, sy, x_label, y_label);
  if (limit)
    o += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{0:.2f}\" y2=\"{2:.2f}\" stroke=\"{3}\" "
                     "stroke-dasharray=\"6 4\"/>\n<text x=\"{4:.2f}\" y=\"{5:.2f}\" font-size=\"11\" "
                     "text-anchor=\"end\" fill=\"{3}\">{6}</text>\n",
                     px(limit->x), b.top, b.base(), kOomColour, px(limit->x) - 4, b.base() - 6, xml_escape(limit->label));
  const auto front = pareto_front(points, y_higher_better);
  // The front as a staircase: each configuration is as good as the line to its right.
  std::string line;
  for (std::size_t k = 0; k < front.size(); ++k) {
    const auto& p = points[front[k]];
    if (k > 0) line += fmt::format(" {:.2f},{:.2f}", px(p.x), py(points[front[k - 1]].y));
    line += fmt::format("{}{:.2f},{:.2f}", k == 0 ? "" : " ", px(p.x), py(p.y));
  }
  if (front.size() > 1)
    o += fmt::format("<polyline class=\"front\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", line,
                     kFrontColour);
  std::vector<bool> on_front(points.size(), false);
  for (const auto i : front) on_front[i] = true;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const auto tip = xml_escape(fmt::format("{}: {} {}, {} {}{}", p.label, x_label, tick_label(p.x), y_label,
                                            tick_label(p.y), p.oom ? " (OOM: does not fit)" : ""));
    if (p.oom)
      o += fmt::format("<circle class=\"oom\" cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"5\" fill=\"white\" stroke=\"{}\" "
                       "stroke-width=\"2\"><title>{}</title></circle>\n",
                       px(p.x), py(p.y), kOomColour, tip);
    else
      o += fmt::format("<circle{} cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"{}\" fill=\"{}\"><title>{}</title></circle>\n",
                       on_front[i] ? " class=\"on-front\"" : "", px(p.x), py(p.y), on_front[i] ? 6 : 4,
                       on_front[i] ? kFrontColour : kDotColour, tip);
  }
  return o + scatter_legend_svg(points) + "</svg>\n";
}

}  // namespace clearfog::report
