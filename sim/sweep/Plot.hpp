#pragma once
// `clearfog sweep --plot METRIC:AXIS`: one metric of every point that ran against one axis, one line
// per combination of the other axes. METRIC is throughput, mfu, step_time or any dotted summary key
// ("communication.exposed_s").
#include <map>
#include <string>

#include "sweep/PointRecord.hpp"

namespace clearfog::sweep {

/// The summary key a metric name stands for ("throughput" -> "samples_per_s").
std::string metric_key(const std::string& metric);

std::string sweep_plot_svg(const std::map<int, PointRecord>& points, const std::string& metric, const std::string& axis,
                           const std::string& sweep_name);

}  // namespace clearfog::sweep
