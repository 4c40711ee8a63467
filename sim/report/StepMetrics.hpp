#pragma once
// The figures of one simulated training iteration, derived from the plan and its replay.
// Definitions in docs/output.md.
#include <cstdint>
#include <string>

#include "config/ScenarioSpec.hpp"
#include "engine/SimulationResult.hpp"
#include "parallel/DataParallelPlanner.hpp"
#include "workload/MemoryEstimate.hpp"

namespace clearfog::report {

struct StepMetrics {
  double step_time_s = 0;
  double samples_per_s = 0;
  double tokens_per_s = 0;
  double model_flops = 0;            // per iteration, Korthikanti Eq. 7
  double mfu = 0;                    // model FLOPs / (step time * devices * peak)
  double peak_flops_per_device = 0;  // of the training precision

  double forward_s = 0;              // per device, all micro-batches
  double backward_s = 0;
  double optimizer_s = 0;
  double compute_busy_s = 0;         // compute stream busy time of the busiest device

  double dp_comm_s = 0;              // gradient all-reduce busy time on the comm stream
  double exposed_comm_s = 0;         // step time not covered by compute on the busiest device
  double hidden_comm_s = 0;          // dp_comm_s - exposed_comm_s (>= 0)
  std::size_t buckets = 0;
  double gradient_bytes = 0;         // per replica per iteration

  workload::MemoryEstimate memory;

  std::uint64_t ops = 0;
  std::uint64_t messages = 0;
};

StepMetrics compute_step_metrics(const config::ScenarioSpec& scenario, const parallel::StepPlan& step,
                                 const engine::SimulationResult& result);

}  // namespace clearfog::report
