#pragma once
// Planning and replaying a scenario in tests, with cost models whose times have closed forms.
#include <string>

#include "engine/ForkedRun.hpp"
#include "parallel/StepPlanner.hpp"
#include "report/StepMetrics.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::test {

inline constexpr double kGemmRate = 100e12;  // FLOP/s of the test cost models

/// GEMM FLOPs / kGemmRate, everything else free: an iteration's compute is Korthikanti Eq. 7 /
/// kGemmRate.
class ComputeOnlyModel final : public kernels::KernelCostModel {
public:
  [[nodiscard]] kernels::KernelCost cost(const kernels::Kernel& k) const override {
    return {k.kind == kernels::KernelKind::Gemm ? k.flops / kGemmRate : 0.0, kernels::Bound::Compute};
  }
  [[nodiscard]] std::string name() const override { return "compute-only"; }
};

/// Prices the GEMMs of the transformer layers only: embedding, head and memory-bound kernels are
/// free, so every pipeline stage does the same work and the bubble has its closed form.
class LayerGemmsOnly final : public kernels::KernelCostModel {
public:
  [[nodiscard]] kernels::KernelCost cost(const kernels::Kernel& k) const override {
    const bool layer_gemm = k.kind == kernels::KernelKind::Gemm && k.name.rfind("logits", 0) != 0;
    return {layer_gemm ? k.flops / kGemmRate : 0.0, kernels::Bound::Compute};
  }
  [[nodiscard]] std::string name() const override { return "layer-gemms-only"; }
};

struct PlanRun {
  parallel::StepPlan step;
  engine::SimulationResult result;
  report::StepMetrics metrics;
};

/// Plans `s` with plain ring collectives and replays it in a child process.
inline PlanRun plan_and_run(const config::ScenarioSpec& s, const kernels::KernelCostModel& costs,
                            const parallel::PlanOptions& options = {}) {
  PlanRun run;
  run.step = parallel::plan_step(s, costs, parallel::plain_group_collectives(s.platform.device_count()), options);
  run.result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), run.step.plan);
  run.metrics = report::compute_step_metrics(s, run.step, run.result);
  return run;
}

}  // namespace clearfog::test
