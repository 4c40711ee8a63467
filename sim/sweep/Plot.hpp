#pragma once
// `clearfog sweep --plot METRIC:AXIS`: one metric of every point that ran against one axis, one line
// per combination of the other axes (those that move with the plotted one, as zipped axes do, do
// not split the line). METRIC is throughput, mfu, step_time or any numeric dotted
// summary key ("communication.exposed_s"). OOM points are drawn apart (report/SweepPlot.hpp).
#include <map>
#include <string>
#include <vector>

#include "sweep/PointRecord.hpp"

namespace clearfog::sweep {

/// The summary key a metric name stands for ("throughput" -> "samples_per_s").
std::string metric_key(const std::string& metric);

/// What --plot accepts as METRIC: throughput, mfu, step_time, then every numeric key of the run
/// summary (`clearfog run --format json`, docs/output.md), dotted.
std::vector<std::string> plot_metrics();

/// Throws ConfigError located at --plot, listing plot_metrics(), when `metric` is not one of them.
void check_plot_metric(const std::string& metric);

std::string sweep_plot_svg(const std::map<int, PointRecord>& points, const std::string& metric, const std::string& axis,
                           const std::string& sweep_name);

}  // namespace clearfog::sweep
