#pragma once
// Plans one training iteration with data parallelism the way PyTorch DDP runs it: every replica
// runs forward and backward of its micro-batches (gradient accumulation without communication
// for all but the last), the last backward launches one ring all-reduce per gradient bucket on
// a communication stream as soon as the bucket is ready, and the optimizer step waits for the
// last bucket. Pure: produces a program::Plan and the figures reports need.
#include <functional>
#include <vector>

#include "collectives/Collective.hpp"
#include "config/ScenarioSpec.hpp"
#include "kernels/Kernel.hpp"
#include "parallel/GradientBuckets.hpp"
#include "program/Program.hpp"

namespace clearfog::parallel {

/// One priced kernel of a pass, for per-op tables.
struct PricedKernel {
  std::string pass;   // "layer.forward", "head.backward", ...
  kernels::Kernel kernel;
  kernels::KernelCost cost;
};

struct StepPlan {
  program::Plan plan;
  std::vector<GradientBucket> buckets;
  int micro_batches = 0;            // per replica
  double forward_s = 0;             // one micro-batch, whole model
  double backward_s = 0;            // one micro-batch, whole model
  double optimizer_s = 0;
  double gradient_bytes = 0;        // all-reduced per iteration by each replica
  std::vector<PricedKernel> kernels;  // one layer, embedding, head and optimizer, priced

  /// Prices `pass`'s kernels, records them in `kernels` and returns their summed time.
  double price(const kernels::KernelCostModel& costs, const std::vector<kernels::Kernel>& pass_kernels,
               const char* pass);

  // 3D parallelism (plan_parallel_step); the data-parallel planner leaves the defaults.
  int tp = 1, pp = 1, virtual_stages = 1;
  std::vector<int> stage_of_rank;     // pipeline stage of each device (empty: all 0)
  double recompute_s = 0;             // one micro-batch, whole model, extra backward work
  double tp_collectives_per_layer = 0;  // per micro-batch, forward + backward (recompute included)
  double tp_bytes_per_collective = 0;   // B, each (an all-reduce's buffer)
  double p2p_bytes = 0;                 // B per inter-stage message
  double ideal_bubble = 0;              // closed form of the schedule
};

/// How gradient buckets are reduced: the data-parallel group and, for a bucket of `bytes`, the
/// all-reduce to append (algorithm, protocol and platform calibration already chosen). The
/// driver builds it from the platform; planners stay pure.
struct GradientReduction {
  int endpoints = 0;          // ranks of the plan: devices, plus reducing-switch endpoints
  std::vector<int> members;   // the data-parallel group, in ring order
  std::function<collectives::CollectiveRequest(double bytes)> request;
};

/// A plain ring over devices 0 … dp-1 with no calibration: the reference for tests and docs.
GradientReduction plain_ring_reduction(int dp);

/// Gradients of one transformer layer in the order backward produces them (PyTorch registers
/// parameters in forward order and reduces in reverse).
std::vector<GradientTensor> layer_gradient_tensors(const config::WorkloadSpec& workload, int layer,
                                                   double bytes_per_element, int ready_slot);

StepPlan plan_data_parallel_step(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
                                 const GradientReduction& reduction);

}  // namespace clearfog::parallel
