#pragma once
// The figures of one simulated training iteration, derived from the plan and its replay.
// Definitions in docs/output.md.
#include <cstdint>
#include <string>

#include "config/ScenarioSpec.hpp"
#include "workload/ModelDescription.hpp"
#include "engine/SimulationResult.hpp"
#include "parallel/MemoryEstimate.hpp"
#include "parallel/StepPlan.hpp"

namespace clearfog::report {

struct StepMetrics {
  double step_time_s = 0;
  double samples_per_s = 0;
  double tokens_per_s = 0;           // 0 for workloads without tokens
  std::string sample_unit;           // "sequences", "images"
  double parameters = 0;             // of the model, summed from its description
  workload::ExpertLoad expert_load;  // MoE routing: imbalance, dropped copies
  double model_flops = 0;            // per iteration, summed from the plan's kernels (Korthikanti Eq. 7 for GPT)
  double mfu = 0;                    // model FLOPs / (step time * devices * peak)
  bool flops_known = true;           // false: an imported trace without FLOPs; FLOP figures are unknown
  bool described = true;             // false: an imported trace; no parameters, no memory estimate
  double peak_flops_per_device = 0;  // of the training precision

  double forward_s = 0;              // per device, all micro-batches
  double backward_s = 0;
  double optimizer_s = 0;
  double compute_busy_s = 0;         // compute stream busy time of the busiest device
  int busiest_device = 0;            // the device with the most compute (the first of equals)
  double least_busy_s = 0;           // compute stream busy time of the least busy device
  double interference_s = 0;         // of compute_busy_s, what the busiest device's kernels lost running beside
                                     // collectives (platform collectives.interference, docs/frameworks.md)
  double interference_factor = 1;    // the platform's slowdown of compute beside a collective
  double collective_interference_s = 0;     // what the busiest device's sending collectives lost beside its
                                            // kernels: o(1 - 1/g) for o seconds beside them (docs/output.md)
  double collective_interference_factor = 1;  // the platform's slowdown of a collective beside compute

  double dp_comm_s = 0;              // gradient reductions (comm stream) + ZeRO-3 gathers (gather stream)
  double tied_comm_s = 0;            // sums of tied copies' gradients between two pipeline stages (tied
                                     // embeddings, DualPipe's mirrored chunks), the longest of any device
  // The busiest device's step = its compute busy time + idle_s; idle_s = pipeline_wait_s +
  // host_bound_s + exposed_comm_s (docs/output.md, "Vocabulary").
  double idle_s = 0;                 // step time in which the busiest device's compute stream computes nothing
  double pipeline_wait_s = 0;        // of it, waiting on pipeline receives (bubble and stage-to-stage transfers)
  double host_bound_s = 0;           // waiting for its host to launch the next kernel (docs/host-time.md)
  double exposed_comm_s = 0;         // the rest: waiting for communication (collectives on the compute stream,
                                     // gradient reductions not hidden, collectives a compute op waits for)
  double gather_exposed_s = 0;       // of exposed_comm_s, waiting for ZeRO-3 / FSDP parameter all-gathers
  double hidden_comm_s = 0;          // dp_comm_s - dp_exposed_s (>= 0)
  std::size_t buckets = 0;
  double gradient_bytes = 0;         // per replica per iteration

  // 3D parallelism (docs/parallelism.md)
  double megatron_tflops_per_gpu = 0;  // Megatron SC21 Eq. 3 FLOPs / (step time * devices), in FLOP/s
  double hardware_flops = 0;           // per iteration, recomputed forwards included
  double hfu = 0;                      // hardware FLOPs / (step time * devices * peak)
  double recompute_s = 0;              // per device, all micro-batches
  double tp_comm_s = 0;                // tensor-parallel collectives the compute stream waits for (exposed)
  double ep_comm_s = 0;                // expert-parallel all-to-alls the compute stream waits for (exposed,
                                       // and the wait for the busiest expert rank)
  double tp_hidden_s = 0;              // tensor-parallel collectives run behind compute (DualPipe's F&B pairs)
  double ep_hidden_s = 0;              // expert-parallel all-to-alls run behind compute (DualPipe's F&B pairs)
  double pp_wait_s = 0;                // compute stream waiting on stage-to-stage receives (bubble included)
  double bubble_fraction = 0;          // idle compute stream before its last backward / step, of the device
                                       // for which it is largest (the stage that idles most)
  int bubble_stage = 0;                // that device's pipeline stage
  double ideal_bubble_fraction = 0;    // closed form of the schedule
  double dp_exposed_s = 0;             // a rank's time from its last backward to its end, not spent in the optimizer,
                                       // waiting for another pipeline stage, summing tied copies or in the last
                                       // layer's tensor- or expert-parallel collectives
  std::vector<double> stage_busy_s;    // compute busy time of each pipeline stage (max over its devices)

  parallel::MemoryEstimate memory;
  bool oom = false;                    // memory.fits() is false

  std::uint64_t ops = 0;
  std::uint64_t messages = 0;
};

StepMetrics compute_step_metrics(const config::ScenarioSpec& scenario, const parallel::StepPlan& step,
                                 const engine::SimulationResult& result);

}  // namespace clearfog::report
