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
#include "parallel/DeviceGrid.hpp"

namespace clearfog::parallel {

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
