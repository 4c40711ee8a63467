#pragma once
// `clearfog sweep --best METRIC`: the top configurations of a sweep and why they win, from the
// figures each point's summary holds (exposed communication, pipeline bubble when reported, memory
// headroom), each compared with the median of the points that ran.
#include <map>
#include <string>

#include "sweep/PointRecord.hpp"

namespace clearfog::sweep {

/// metric: throughput (samples/s, higher wins), mfu (higher wins) or step_time (lower wins).
/// Throws ConfigError for another metric.
std::string render_best(const std::map<int, PointRecord>& points, const std::string& metric, int top = 5);

}  // namespace clearfog::sweep
