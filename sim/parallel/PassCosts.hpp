#pragma once
// What one micro-batch's passes cost on one device of a 3D-parallel run, priced once per step
// before the planner lays them out: forward and backward of a layer's attention and MLP parts, the
// embedding and the head, recomputation, unfused gradient accumulation, and each stage's optimizer
// step. Pure: kernels are priced by the cost model and recorded in the step's kernel table.
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "kernels/Kernel.hpp"
#include "parallel/DataParallelPlanner.hpp"
#include "workload/TransformerModel.hpp"

namespace clearfog::parallel {

struct PassCosts {
  double embedding_fwd_s = 0, embedding_bwd_s = 0;
  double attn_fwd_s = 0, mlp_fwd_s = 0;  // one layer, split where Megatron's all-reduces fall
  double mlp_bwd_s = 0, attn_bwd_s = 0;
  double head_fwd_s = 0, head_bwd_s = 0;
  double core_s = 0;             // selective recomputation: the attention core's forward
  double layer_recompute_s = 0;  // what one layer's backward re-runs (full: its forward)
  /// Unfused gradient accumulation, paid by every micro-batch after the first (0 when fused).
  double layer_accumulate_s = 0, embedding_accumulate_s = 0;
  std::vector<double> optimizer_s;  // per pipeline stage, on its (ZeRO-sharded) parameters
};

/// Prices the passes of `scenario` with `model` (built for its micro-batch and sharding) over the
/// chunks `layers`; records the kernel tables and the busiest stage's forward, backward,
/// recompute and optimizer times in `step`.
PassCosts price_passes(const config::ScenarioSpec& scenario, const workload::TransformerModel& model,
                       const std::vector<int>& layers, const kernels::KernelCostModel& costs, StepPlan& step);

}  // namespace clearfog::parallel
