#include "report/StepMetrics.hpp"

#include <algorithm>

#include "workload/ModelFlops.hpp"

namespace clearfog::report {

StepMetrics compute_step_metrics(const config::ScenarioSpec& scenario, const parallel::StepPlan& step,
                                 const engine::SimulationResult& result) {
  StepMetrics m;
  const auto& training = scenario.training;
  const int devices = scenario.platform.device_count();
  m.step_time_s = result.makespan_s;
  m.samples_per_s = training.global_batch / m.step_time_s;
  m.tokens_per_s = m.samples_per_s * scenario.workload.seq_length;
  m.model_flops = workload::model_flops_per_iteration(scenario.workload, training.global_batch);
  m.peak_flops_per_device = scenario.platform.accelerator.peak(training.precision);
  m.mfu = m.model_flops / (m.step_time_s * devices * m.peak_flops_per_device);

  m.forward_s = step.forward_s * step.micro_batches;
  m.backward_s = step.backward_s * step.micro_batches;
  m.optimizer_s = step.optimizer_s;
  m.buckets = step.buckets.size();
  m.gradient_bytes = step.gradient_bytes;

  for (int r = 0; r < step.plan.rank_count(); ++r) {
    double compute = 0;
    double comm = 0;
    const auto& ops = step.plan.ranks[r].ops();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const double d = result.ops[r][i].duration_s();
      if (ops[i].stream == program::Stream::Compute)
        compute += d;
      else if (ops[i].category == program::Category::DataParallelComm)
        comm += d;
    }
    m.compute_busy_s = std::max(m.compute_busy_s, compute);
    m.dp_comm_s = std::max(m.dp_comm_s, comm);
  }
  // With one compute stream, every moment of the step in which the busiest device does not
  // compute is spent waiting for communication.
  m.exposed_comm_s = std::max(0.0, m.step_time_s - m.compute_busy_s);
  m.hidden_comm_s = std::max(0.0, m.dp_comm_s - m.exposed_comm_s);
  m.memory = workload::estimate_memory(scenario);
  m.ops = result.ops_executed;
  m.messages = result.messages;
  return m;
}

}  // namespace clearfog::report
