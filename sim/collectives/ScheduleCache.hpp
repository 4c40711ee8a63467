#pragma once
// Lowered schedules remembered by their shape. A planner appends the same collective shape many
// times (each micro-batch's tensor-parallel all-reduce, each ZeRO-3 unit's gather); the schedule
// depends only on the shape — the operation, algorithm, member count, sizes and the knobs the
// algorithm reads — never on which ranks run it, so it is built and lowered once and reused.
// Requests with a per-pair byte matrix are not remembered (their matrices differ).
#include <map>
#include <tuple>
#include <vector>

#include "collectives/AppendSchedule.hpp"
#include "config/CollectiveSpec.hpp"

namespace clearfog::collectives {

/// Everything a collective's schedule is built from (collectives::shape_of in Collective.cpp).
struct ScheduleShape {
  config::CollectiveOp op = config::CollectiveOp::AllReduce;
  config::CollectiveAlgorithm algorithm;
  config::Fidelity fidelity = config::Fidelity::Step;
  int members = 0;
  int root = 0;
  int ranks_per_node = 0;
  int channels = 1;
  std::vector<std::vector<int>> rings;
  double bytes = 0;
  double chunk_B = 0;
  double network_share = 1;
  double node_scale = 1;
  double tree_scale = 1;

  [[nodiscard]] auto tied() const {
    return std::tie(op, algorithm, fidelity, members, root, ranks_per_node, channels, rings, bytes, chunk_B,
                    network_share, node_scale, tree_scale);
  }
  bool operator<(const ScheduleShape& o) const { return tied() < o.tied(); }
};

class ScheduleCache {
public:
  /// The lowered schedule of `shape`, built by `make()` the first time the shape is seen.
  template <typename Make>
  const LoweredSchedule& lowered(const ScheduleShape& shape, Make make) {
    auto it = schedules_.find(shape);
    if (it == schedules_.end()) it = schedules_.emplace(shape, make()).first;
    return it->second;
  }
  [[nodiscard]] std::size_t size() const { return schedules_.size(); }

private:
  std::map<ScheduleShape, LoweredSchedule> schedules_;
};

}  // namespace clearfog::collectives
