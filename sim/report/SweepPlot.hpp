#pragma once
// A line chart of one metric against one sweep axis: `clearfog sweep --plot throughput:parallelism.dp`.
// The x axis is categorical (the axis values in order), one line with markers per series (one series
// per combination of the other axes), y from 0 with ticks, axis labels and a legend. Points that do
// not fit in memory are hollow red rings off the line. The picture widens and grows to hold the
// whole legend. Deterministic.
#include <optional>
#include <string>
#include <vector>

namespace clearfog::report {

struct PlotSeries {
  std::string name;                       // legend text; empty for a single series
  std::vector<std::optional<double>> y;   // one per x category; nullopt = no value (failed point)
  std::vector<bool> oom;                  // per x category: the point does not fit in memory (may be empty)
};

/// Drawn as a hollow red ring outside the line, with a legend entry: simulated, but not a
/// configuration that can run.
inline constexpr const char* kOomColour = "#d62728";

/// The series colours, in order.
inline constexpr const char* kPlotColours[] = {"#4c78a8", "#f58518", "#54a24b", "#e45756",
                                               "#b279a2", "#72b7b2", "#9d755d", "#eeca3b"};

/// A tick or value label: "0", "12.5", "1.23e+07".
std::string tick_label(double v);

/// The width in px `text` takes at `font_px` in a sans-serif font, estimated from above.
double text_width_px(const std::string& text, double font_px);

std::string line_plot_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                          const std::vector<std::string>& x_categories, const std::vector<PlotSeries>& series);

}  // namespace clearfog::report
