#include "compare/StepBound.hpp"

#include <algorithm>

#include "report/StreamWaits.hpp"

namespace clearfog::compare {

std::vector<std::pair<std::string, double>> StepBreakdown::ranked_parts() const {
  const double step = step_s > 0 ? step_s : 1;
  // Compute first on ties: it is what a faster chip would fix.
  std::vector<std::pair<std::string, double>> parts = {{"compute", compute_bound_s / step},
                                                       {"memory bandwidth", memory_bound_s / step},
                                                       {"interconnect", exposed_comm_s / step},
                                                       {"pipeline bubble", bubble_s / step},
                                                       {"host launches", host_bound_s / step}};
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return parts;
}

StepBreakdown step_breakdown(const config::ScenarioSpec& scenario, const parallel::StepPlan& step,
                             const engine::SimulationResult& simulation) {
  // The kernel table lists every distinct pass with how often it runs per iteration on the
  // busiest stage's devices: weighted by that, it gives the memory-bound share of the compute stream.
  double total = 0, memory = 0, compute_flops = 0;
  for (const auto& pk : step.kernels) {
    const double t = pk.cost.time_s * pk.runs;
    total += t;
    if (pk.cost.bound == kernels::Bound::Memory)
      memory += t;
    else
      compute_flops += pk.kernel.flops * pk.runs;
  }
  const double memory_share = total > 0 ? memory / total : 0;

  // The device with the most compute; its timeline spans the whole step like every device's.
  double busiest = -1, waits = 0, host = 0;
  const int devices = std::min(scenario.platform.device_count(), step.plan.rank_count());
  for (int r = 0; r < devices; ++r) {
    double compute = 0, pipeline = 0;
    const auto& program = step.plan.ranks[r];
    for (program::OpIndex i = 0; i < program.size(); ++i) {
      const program::OpHead op = program.head(i);
      if (op.stream != program::Stream::Compute) continue;
      const double d = simulation.ops[r][i].duration_s();
      if (op.kind == program::OpKind::Compute) compute += d;
      if (op.category == program::Category::PipelineComm) pipeline += d;
    }
    if (compute > busiest) {
      busiest = compute;
      waits = pipeline;
      host = report::host_wait_s(program, simulation.ops[r]);
    }
  }
  StepBreakdown b;
  b.step_s = simulation.makespan_s;
  const double compute = std::max(0.0, busiest);
  b.compute_bound_s = compute * (1 - memory_share);
  b.memory_bound_s = compute * memory_share;
  b.bubble_s = std::min(waits, std::max(0.0, b.step_s - compute));
  b.host_bound_s = std::min(host, std::max(0.0, b.step_s - compute - b.bubble_s));
  b.exposed_comm_s = std::max(0.0, b.step_s - compute - b.bubble_s - b.host_bound_s);
  const double peak = scenario.platform.accelerator.peak(scenario.training.precision);
  const double compute_time = total - memory;
  b.compute_efficiency = compute_time > 0 && peak > 0 ? compute_flops / compute_time / peak : 0;
  return b;
}

nlohmann::ordered_json breakdown_json(const StepBreakdown& b) {
  return {{"step_s", b.step_s},
          {"compute_bound_s", b.compute_bound_s},
          {"memory_bound_s", b.memory_bound_s},
          {"bubble_s", b.bubble_s},
          {"host_bound_s", b.host_bound_s},
          {"exposed_comm_s", b.exposed_comm_s},
          {"compute_efficiency", b.compute_efficiency},
          {"dominant", b.dominant()}};
}

StepBreakdown breakdown_from_json(const nlohmann::ordered_json& j) {
  StepBreakdown b;
  b.step_s = j.at("step_s").get<double>();
  b.compute_bound_s = j.at("compute_bound_s").get<double>();
  b.memory_bound_s = j.at("memory_bound_s").get<double>();
  b.bubble_s = j.at("bubble_s").get<double>();
  // Results written before the host model have no host part: none was simulated.
  b.host_bound_s = j.contains("host_bound_s") ? j.at("host_bound_s").get<double>() : 0.0;
  b.exposed_comm_s = j.at("exposed_comm_s").get<double>();
  b.compute_efficiency = j.at("compute_efficiency").get<double>();
  return b;
}

}  // namespace clearfog::compare
