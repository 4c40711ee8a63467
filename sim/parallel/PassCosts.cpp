#include "parallel/PassCosts.hpp"

#include <algorithm>
#include <string>

namespace clearfog::parallel {

PassCosts price_passes(const config::ScenarioSpec& scenario, const workload::TransformerModel& model,
                       const std::vector<int>& layers, const kernels::KernelCostModel& costs, StepPlan& step) {
  const auto& w = scenario.workload;
  const auto& training = scenario.training;
  const auto& par = scenario.parallelism;
  const int tp = par.tp, pp = par.pp, dp = par.dp;
  const int chunks = static_cast<int>(layers.size());
  const int m = scenario.micro_batches_per_replica();
  const double element_B = dtype_bytes(training.precision);
  PassCosts out;
  auto price = [&](const std::vector<kernels::Kernel>& kernels, const char* pass) {
    return step.price(costs, kernels, pass);
  };
  const auto fwd_parts = model.layer_forward_parts();
  const auto bwd_parts = model.layer_backward_parts();
  out.embedding_fwd_s = price(model.embedding_forward(), "embedding.forward");
  out.attn_fwd_s = price(fwd_parts[0], "layer.forward.attention");
  out.mlp_fwd_s = price(fwd_parts[1], "layer.forward.mlp");
  out.head_fwd_s = price(model.head_forward(), "head.forward");
  out.head_bwd_s = price(model.head_backward(), "head.backward");
  out.mlp_bwd_s = price(bwd_parts[0], "layer.backward.mlp");
  out.attn_bwd_s = price(bwd_parts[1], "layer.backward.attention");
  out.embedding_bwd_s = price(model.embedding_backward(), "embedding.backward");
  // Without gradient-accumulation fusion every micro-batch after the first adds its weight
  // gradients to the accumulated ones (PyTorch autograd: grad += new, one memory-bound kernel per
  // parameter tensor reading both and writing one, 3e bytes per parameter). Fused, the weight-
  // gradient GEMM accumulates into the buffer itself (C += A.B) at no extra traffic.
  if (!training.grad_accumulation_fusion && m > 1) {
    const double accumulate_B = 3 * element_B;
    std::vector<kernels::Kernel> accumulate;
    for (const auto& g : layer_gradient_tensors(w, 0, 1.0, 0)) {
      const double elements = g.bytes / tp;  // bytes_per_element 1: bytes count elements
      accumulate.push_back(kernels::Kernel::make_memory_bound("grad_accumulate." + g.name.substr(g.name.find('.') + 1),
                                                              elements * accumulate_B, elements, training.precision));
    }
    out.layer_accumulate_s = price(accumulate, "layer.backward.grad_accumulation");
    const double embedding_elements = model.embedding_parameters() / tp;
    out.embedding_accumulate_s =
        price({kernels::Kernel::make_memory_bound("grad_accumulate.embedding", embedding_elements * accumulate_B,
                                                  embedding_elements, training.precision)},
              "embedding.backward.grad_accumulation");
  }
  // Averaged over the micro-batches, for the per-stage figures of reports.
  const double mean_accumulate = m > 1 ? (m - 1.0) / m : 0.0;
  if (training.recompute == config::Recompute::Selective)
    out.core_s = price(model.attention_core_forward(), "layer.recompute.attention_core");
  const bool full = training.recompute == config::Recompute::Full;
  out.layer_recompute_s = full ? out.attn_fwd_s + out.mlp_fwd_s : out.core_s;

  // Per device work of the busiest stage, for reports.
  const double per_layer_params = model.parameters_per_layer() / tp;
  std::vector<double> stage_fwd(pp, 0), stage_bwd(pp, 0), stage_rec(pp, 0), stage_params(pp, 0);
  for (int k = 0; k < chunks; ++k) {
    const int s = k % pp;
    stage_fwd[s] += layers[k] * (out.attn_fwd_s + out.mlp_fwd_s);
    stage_bwd[s] += layers[k] * (out.attn_bwd_s + out.mlp_bwd_s + out.layer_recompute_s +
                                 mean_accumulate * out.layer_accumulate_s);
    stage_rec[s] += layers[k] * out.layer_recompute_s;
    stage_params[s] += layers[k] * per_layer_params;
  }
  stage_fwd[0] += out.embedding_fwd_s;
  stage_bwd[0] += out.embedding_bwd_s + mean_accumulate * out.embedding_accumulate_s;
  stage_fwd[pp - 1] += out.head_fwd_s;
  stage_bwd[pp - 1] += out.head_bwd_s + (pp > 1 ? mean_accumulate * out.embedding_accumulate_s : 0.0);
  stage_params[0] += model.embedding_parameters() / tp;
  if (pp > 1) stage_params[pp - 1] += model.embedding_parameters() / tp;  // tied logits copy
  stage_params[pp - 1] += model.head_parameters();
  int busiest = 0;
  for (int s = 0; s < pp; ++s)
    if (stage_fwd[s] + stage_bwd[s] > stage_fwd[busiest] + stage_bwd[busiest]) busiest = s;
  step.forward_s = stage_fwd[busiest];
  step.backward_s = stage_bwd[busiest];
  step.recompute_s = stage_rec[busiest];

  const auto& accelerator = scenario.platform.accelerator;
  const DType update_dtype = accelerator.supports(DType::fp32) ? DType::fp32 : training.precision;
  const bool adam = training.optimizer == config::Optimizer::Adam;
  const double optimizer_shard = par.zero_stage >= 1 ? dp : 1;
  out.optimizer_s.assign(static_cast<std::size_t>(pp), 0.0);
  for (int s = 0; s < pp; ++s)
    out.optimizer_s[s] = costs
                             .cost(workload::TransformerModel::optimizer_step(stage_params[s] / optimizer_shard, adam,
                                                                              training.precision, update_dtype))
                             .time_s;
  step.optimizer_s = *std::max_element(out.optimizer_s.begin(), out.optimizer_s.end());
  return out;
}

}  // namespace clearfog::parallel
