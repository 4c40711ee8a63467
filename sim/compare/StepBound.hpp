#pragma once
// What bounds a simulated training step. The step of the busiest device (the most compute) splits
// into five parts that add up to the step time: compute-bound kernels, memory-bandwidth-bound
// kernels, pipeline waits (bubble and stage-to-stage transfers), waits for the host's kernel
// launches (docs/host-time.md) and exposed communication (the rest:
// tensor-parallel collectives on the compute stream, gradient reductions the backward pass did not
// hide). The largest part is the dominant bound.
#include <string>
#include <utility>
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "parallel/StepPlan.hpp"
#include "engine/SimulationResult.hpp"

#include <nlohmann/json.hpp>

namespace clearfog::compare {

struct StepBreakdown {
  double step_s = 0;
  double compute_bound_s = 0;   // kernels limited by the accelerator's arithmetic peak
  double memory_bound_s = 0;    // kernels limited by a memory level's bandwidth
  double bubble_s = 0;          // compute stream waiting on pipeline receives
  double host_bound_s = 0;      // compute stream waiting for its host to launch the next op
  double exposed_comm_s = 0;    // step - compute - bubble - host
  /// Achieved FLOP/s of the compute-bound kernels over the peak of the training precision: low
  /// when GEMM tiles fill few of the compute units.
  double compute_efficiency = 0;

  /// (name, share of the step) of the five parts, largest first: "compute", "memory bandwidth",
  /// "interconnect", "pipeline bubble", "host launches" (ties keep this order).
  [[nodiscard]] std::vector<std::pair<std::string, double>> ranked_parts() const;
  /// The largest part's name: the dominant bound.
  [[nodiscard]] std::string dominant() const { return ranked_parts().front().first; }
};

/// The busiest device's step from its simulated ops; its compute time is split by the bound of the
/// kernels as the kernel model priced them (`clearfog run --ops`: time x runs of each kernel).
StepBreakdown step_breakdown(const config::ScenarioSpec& scenario, const parallel::StepPlan& step,
                             const engine::SimulationResult& simulation);

nlohmann::ordered_json breakdown_json(const StepBreakdown& b);
StepBreakdown breakdown_from_json(const nlohmann::ordered_json& j);

}  // namespace clearfog::compare
