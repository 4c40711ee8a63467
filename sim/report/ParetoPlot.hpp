#pragma once
// The Pareto front of a sweep: every configuration as a dot on two numeric axes (step time against
// memory per device, or throughput against device count), the non-dominated ones joined by a line.
// Points that do not fit in memory are hollow red rings and never on the front. Deterministic.
#include <optional>
#include <string>
#include <vector>

namespace clearfog::report {

struct ScatterPoint {
  double x = 0;       // lower is better
  double y = 0;       // lower is better unless the plot says higher
  std::string label;  // the hover text
  bool oom = false;   // simulated, but the memory estimate exceeds the device
};

/// Indices, in increasing x, of the points no other fitting point dominates (no worse on both axes,
/// better on one). OOM points are never on the front. Ties on both axes keep the first.
std::vector<std::size_t> pareto_front(const std::vector<ScatterPoint>& points, bool y_higher_better);

/// A limit of x drawn as a dashed red vertical line with its label (the device's memory capacity);
/// left out when it lies beyond 4x the largest x of a point, where it would squash them to the left.
struct XLimit {
  double x = 0;
  std::string label;
};

std::string pareto_plot_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                            const std::vector<ScatterPoint>& points, bool y_higher_better,
                            const std::optional<XLimit>& x_limit = std::nullopt);

}  // namespace clearfog::report
