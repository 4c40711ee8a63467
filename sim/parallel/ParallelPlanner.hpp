#pragma once
// Plans one training iteration with tensor x pipeline x data parallelism (Megatron-LM: Shoeybi et
// al. 2019, Narayanan et al. SC21, Korthikanti et al. 2022) and ZeRO/FSDP sharding (Rajbhandari et
// al. SC20). Pure: produces a program::Plan; the driver supplies priced collectives. Model and
// equations: docs/parallelism.md.
#include <array>
#include <functional>
#include <vector>

#include "collectives/Collective.hpp"
#include "config/ScenarioSpec.hpp"
#include "kernels/Kernel.hpp"
#include "parallel/DataParallelPlanner.hpp"

namespace clearfog::parallel {

/// Where each (dp, pp, tp) coordinate lives: rank = sum of index x stride, parallelism.order[0]
/// varying fastest.
class DeviceGrid {
public:
  explicit DeviceGrid(const config::ParallelismSpec& parallelism);
  [[nodiscard]] int rank(int dp_index, int pp_index, int tp_index) const;
  [[nodiscard]] std::array<int, 3> coordinates(int rank) const;  // {dp, pp, tp}
  [[nodiscard]] int size() const { return sizes_[0] * sizes_[1] * sizes_[2]; }
  /// Members of the tensor group of (d, s), the data group of (s, t), in index order.
  [[nodiscard]] std::vector<int> tensor_group(int dp_index, int pp_index) const;
  [[nodiscard]] std::vector<int> data_group(int pp_index, int tp_index) const;

private:
  std::array<int, 3> sizes_{};    // by axis: tp, pp, dp
  std::array<int, 3> strides_{};  // by axis
};

/// Collectives over any group of devices: the driver gives the platform's calibration and the
/// algorithm; tests use plain_group_collectives().
struct GroupCollectives {
  int endpoints = 0;  // ranks of the plan: devices, plus reducing-switch endpoints
  std::function<collectives::CollectiveRequest(config::CollectiveOp op, const std::vector<int>& members,
                                               double bytes)>
      request;
};

/// Ring for all-reduce / reduce-scatter / all-gather, direct for sendrecv, no calibration.
GroupCollectives plain_group_collectives(int devices, config::Fidelity fidelity = config::Fidelity::Step);

struct ParallelPlanOptions {
  /// One compute op and one tensor-parallel collective (of the summed bytes) per pass of a model
  /// chunk instead of per layer: far fewer events for thousands of devices, the same busy times.
  bool fuse_chunk_layers = false;
};

/// Layers of each model chunk (pp x virtual_stages, in model order): parallelism.layer_split or an
/// even split. Throws clearfog::Error when neither works.
std::vector<int> chunk_layers(const config::ScenarioSpec& scenario);

StepPlan plan_parallel_step(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
                            const GroupCollectives& collectives, const ParallelPlanOptions& options = {});

}  // namespace clearfog::parallel
