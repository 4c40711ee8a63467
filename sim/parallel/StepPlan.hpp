#pragma once
// What planning one training iteration produces: the per-rank programs and the figures reports
// take from the plan rather than from the replay (priced kernels, FLOPs, parameters, buckets).
#include <string>
#include <vector>

#include "kernels/Kernel.hpp"
#include "parallel/GradientBuckets.hpp"
#include "program/Program.hpp"
#include "workload/ModelDescription.hpp"

namespace clearfog::parallel {

/// One priced kernel of a pass, for per-op tables.
struct PricedKernel {
  std::string pass;   // "layer.forward.attn", "head.backward.logits", "optimizer"
  kernels::Kernel kernel;
  kernels::KernelCost cost;
  int runs = 0;       // times per iteration on the busiest pipeline stage's devices
};

struct StepPlan {
  program::Plan plan;
  std::vector<GradientBucket> buckets;  // of the first data-parallel group (stage 0, tensor rank 0)
  int micro_batches = 0;                // per replica
  double forward_s = 0;                 // one micro-batch, busiest stage
  double backward_s = 0;                // one micro-batch, busiest stage (recomputation included)
  double recompute_s = 0;               // one micro-batch, busiest stage, extra backward work
  double optimizer_s = 0;               // the slowest stage's optimizer step
  double gradient_bytes = 0;            // reduced per iteration by each device of the first data group
  std::vector<PricedKernel> kernels;    // every distinct pass's kernels, priced

  // Figures summed from the plan's kernels over every device and micro-batch (docs/workloads.md).
  double model_flops = 0;     // matrix-product FLOPs of the model's forward and backward (MFU)
  double hardware_flops = 0;  // matrix-product FLOPs executed, recomputation included (HFU)
  double megatron_flops = 0;  // model FLOPs + one forward of every checkpointable block (SC21 Eq. 3)
  double parameters = 0;      // of the model
  /// Whether the FLOPs above are known: false for an imported trace whose compute nodes do not all
  /// give num_ops (reports then print them as unknown, never as 0).
  bool flops_known = true;
  /// Whether the step was planned from a model description: false for an imported trace, which has
  /// no parameters and no memory estimate.
  bool described = true;
  workload::ExpertLoad expert_load;  // MoE routing (from the description)
  double samples = 0;         // per iteration
  double tokens_per_sample = 0;
  std::string sample_unit = "samples";
  std::vector<std::string> block_names;  // the model's blocks, in model order
  std::vector<int> chunk_of_block;       // model chunk of each block

  int tp = 1, pp = 1, virtual_stages = 1;
  std::vector<int> stage_of_rank;        // pipeline stage of each device (empty: all 0)
  double p2p_bytes = 0;                  // B per inter-stage message
  double ideal_bubble = 0;               // closed form of the schedule

  /// Prices `pass`'s kernels, records them (run `runs` times) in `kernels` and returns their
  /// summed time.
  double price(const kernels::KernelCostModel& costs, const std::vector<kernels::Kernel>& pass_kernels,
               const std::string& pass, int runs);
};

}  // namespace clearfog::parallel
