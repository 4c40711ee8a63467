#include "parallel/GradientAccumulation.hpp"

namespace clearfog::parallel {

GradientAccumulation gradient_accumulation(const config::ScenarioSpec& scenario) {
  GradientAccumulation a;
  a.active = !scenario.training.grad_accumulation_fusion;
  const DType precision = storage_dtype(scenario.training.precision);
  a.gradient = a.sum = precision;
  const auto& par = scenario.parallelism;
  if (scenario.sums_gradients_unsharded()) {
    a.sum = scenario.gradient_reduce_dtype();
    const double g = dtype_bytes(a.gradient), s = dtype_bytes(a.sum);
    a.first_share = a.sum == a.gradient ? 0.0 : (g + s) / (g + 2 * s);
  } else if (!scenario.optimizer_passes().gradient_copy) {
    // Megatron's fp32 main_grad: every micro-batch's hook adds its gradient into the zeroed buffer.
    a.sum = scenario.gradient_reduce_dtype();
    a.first_share = 1;
  } else if (scenario.reduces_every_micro_batch()) {
    a.gradient = a.sum = scenario.gradient_reduce_dtype();
    a.dense_share = 1.0 / par.shard_degree();
    a.expert_share = 1.0 / (par.dp / par.ep);
  }
  return a;
}

}  // namespace clearfog::parallel
