#pragma once
// A line chart of one metric against one sweep axis: `clearfog sweep --plot throughput:parallelism.dp`.
// The x axis is categorical (the axis values in order), one line with markers per series (one series
// per combination of the other axes), y from 0 with ticks, axis labels and a legend. Deterministic.
#include <optional>
#include <string>
#include <vector>

namespace clearfog::report {

struct PlotSeries {
  std::string name;                       // legend text; empty for a single series
  std::vector<std::optional<double>> y;   // one per x category; nullopt = no value (failed point)
};

std::string line_plot_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                          const std::vector<std::string>& x_categories, const std::vector<PlotSeries>& series);

}  // namespace clearfog::report
