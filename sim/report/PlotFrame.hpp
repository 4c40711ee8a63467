#pragma once
// The frame the sweep's two plots share (SweepPlot's line chart, ParetoPlot's scatter): a plot box
// at a fixed place in the picture, a linear y axis from 0 with grid lines and tick labels, the axis
// labels, and the picture's opening with its title. Each plot draws its own x axis, marks and legend.
#include <string>

namespace clearfog::report {

inline constexpr double kPlotTitleFont = 16;  // px
inline constexpr double kPlotMargin = 10;     // px around what the picture must hold
inline constexpr double kPlotLegendRow = 20;  // px per legend entry

struct PlotBox {
  double left = 90;    // px, room for the y tick labels
  double top = 50;     // px, room for the title
  double width = 0;    // px, the plot area
  double height = 0;   // px
  double bottom = 70;  // px below the plot: x tick labels and the axis label

  [[nodiscard]] double right() const { return left + width; }
  [[nodiscard]] double base() const { return top + height; }  // where the x axis runs
};

/// A linear axis from 0 to `top`, a round value above the largest value drawn, ticks every `tick`.
struct LinearAxis {
  double tick = 1;
  double top = 1;

  /// At least one tick above `max` when it falls on one, so no mark sits on the frame's edge.
  explicit LinearAxis(double max);
  /// Where `v` lies along the axis: 0 at the origin, 1 at the top.
  [[nodiscard]] double fraction(double v) const { return v / top; }
};

/// The y coordinate of value `v` in `box` on axis `y`.
inline double y_px(const PlotBox& box, const LinearAxis& y, double v) { return box.top + box.height * (1 - y.fraction(v)); }

/// `<svg …>`, a white background and the title above the plot box.
std::string plot_svg_open(double width, double height, const PlotBox& box, const std::string& title);
/// Horizontal grid lines at the y ticks, with their labels left of the box.
std::string y_grid_svg(const PlotBox& box, const LinearAxis& y);
/// The x axis label under the box, the y axis label turned along its left side.
std::string axis_labels_svg(const PlotBox& box, const std::string& x_label, const std::string& y_label);

}  // namespace clearfog::report
