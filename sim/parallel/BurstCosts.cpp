#include "parallel/BurstCosts.hpp"

#include "kernels/BlockedGemmModel.hpp"
#include "kernels/ScaledCostModel.hpp"
#include "parallel/BlockCosts.hpp"
#include "parallel/PlatformInterference.hpp"
#include "workload/OptimizerStep.hpp"
#include "workload/TransformerModel.hpp"
#include "workload/WorkloadType.hpp"

namespace clearfog::parallel {
namespace {

/// The scenario's model at `batch` samples per device, on one device.
workload::ModelDescription model_at(config::ScenarioSpec scenario, int batch) {
  scenario.training.micro_batch = batch;
  scenario.parallelism.tp = 1;
  scenario.parallelism.ep = 1;
  scenario.parallelism.sequence_parallel = false;
  return workload::describe(scenario);
}

double optimizer_s(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs, double parameters) {
  if (parameters <= 0) return 0;
  const auto& accelerator = scenario.platform.accelerator;
  const DType update = accelerator.supports(DType::fp32) ? DType::fp32 : scenario.training.precision;
  const auto kernel = workload::optimizer_step(
      parameters, scenario.training.optimizer == config::Optimizer::Adam, scenario.training.precision, update,
      scenario.optimizer_passes());
  return costs.cost(kernel).time_s;
}

}  // namespace

BurstCosting burst_costs(const config::ScenarioSpec& scenario, const std::vector<int>& widths,
                         double amplification_limit) {
  // Priced as `clearfog run` prices them: the blocked-GEMM model under the framework's kernel time.
  const kernels::BlockedGemmModel gemm(scenario.platform.accelerator);
  const kernels::ScaledCostModel costs(gemm, scenario.framework.kernel_time_factor);
  BurstCosting c;
  auto& p = c.problem;
  p.widths = widths;
  p.global_batch = scenario.training.global_batch;
  p.amplification_limit = amplification_limit;
  const auto& platform = scenario.platform;
  c.interference = platform_interference(platform);
  p.node_devices = platform.node.devices;
  p.node_link_Bps = platform.node.link.bandwidth_Bps;
  p.node_latency_s = platform.node.link.latency_s;
  const bool one_node = platform.fabric.nodes <= 1;
  p.link_Bps = one_node ? p.node_link_Bps : platform.fabric.nic.bandwidth_Bps;
  p.latency_s = one_node ? p.node_latency_s : platform.fabric.nic.latency_s;
  const double element_B = dtype_bytes(scenario.gradient_reduce_dtype());  // of a gradient as reduced
  for (std::size_t w = 0; w < widths.size(); ++w) {
    const int batch = p.global_batch / widths[w];
    const auto model = model_at(scenario, batch);
    const BlockCosts priced(model, costs);
    if (w == 0) p.layers.resize(model.blocks.size());
    for (std::size_t b = 0; b < model.blocks.size(); ++b) {
      auto& layer = p.layers[b];
      const auto& block = model.blocks[b];
      layer.forward_s.push_back(priced.of(b).forward_s());
      layer.backward_s.push_back(priced.of(b).backward_s());
      if (w > 0) continue;
      layer.name = block.name;
      layer.gradient_B = block.device_parameters() * element_B;
      layer.output_B_per_sample = block.output_B / batch;
      c.optimizer_s.push_back(optimizer_s(scenario, costs, block.device_parameters()));
    }
  }
  return c;
}

BackgroundJob background_job(const config::ScenarioSpec& scenario, const config::WorkloadSpec& workload, int batch) {
  config::ScenarioSpec alone = scenario;
  alone.workload = workload;
  const kernels::BlockedGemmModel gemm(scenario.platform.accelerator);
  const kernels::ScaledCostModel costs(gemm, scenario.framework.kernel_time_factor);
  const auto model = model_at(alone, batch);
  const BlockCosts priced(model, costs);
  BackgroundJob job;
  job.batch = batch;
  double parameters = 0;
  for (std::size_t b = 0; b < model.blocks.size(); ++b) {
    job.forward_s.push_back(priced.of(b).forward_s());
    job.backward_s.push_back(priced.of(b).backward_s());
    parameters += model.blocks[b].device_parameters();
  }
  job.optimizer_s = optimizer_s(scenario, costs, parameters);
  return job;
}

}  // namespace clearfog::parallel
