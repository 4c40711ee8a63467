#pragma once
// The Mixture-of-Experts part of a transformer layer on one device (docs/moe.md): the router, the
// permutation of token copies into expert order, the routed experts as grouped GEMMs, the shared
// experts as a dense MLP, and the weighted combination back into token order (Megatron-Core's
// MoELayer with the all-to-all token dispatcher). The token counts come from workload/ExpertRouting.
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "kernels/Kernel.hpp"
#include "workload/TransformerModel.hpp"

namespace clearfog::workload {

class TransformerMoe {
public:
  /// Layer `layer` of `model`, which must be a MoE layer (TransformerSpec::moe_layer).
  TransformerMoe(const TransformerModel& model, int layer);

  /// Tokens entering the router on this device: b*s, over t with sequence parallelism.
  [[nodiscard]] double router_tokens() const;
  /// Residual add, norm, router GEMM (h -> E logits), top-k softmax, permutation into k copies.
  [[nodiscard]] std::vector<kernels::Kernel> router_forward() const;
  /// The permutation's scatter-add, the top-k softmax's and the router GEMM's gradients (the norm
  /// and residual backward are in the attention part, as for a dense layer).
  [[nodiscard]] std::vector<kernels::Kernel> router_backward() const;
  /// The routed experts on this device, `tokens[e]` token copies for its local expert e (after the
  /// tensor group's all-gather: every tensor rank's copies), each expert's MLP sharded over t.
  [[nodiscard]] std::vector<kernels::Kernel> experts_forward(const std::vector<double>& tokens) const;
  [[nodiscard]] std::vector<kernels::Kernel> experts_backward(const std::vector<double>& tokens) const;
  /// The shared experts as one MLP of shared_experts x expert_ffn_hidden over the whole sequence
  /// (all-gathered over the tensor group); empty without shared experts.
  [[nodiscard]] std::vector<kernels::Kernel> shared_forward() const;
  [[nodiscard]] std::vector<kernels::Kernel> shared_backward() const;
  /// Unpermutation with the routing weights (k copies summed into each token), residual add.
  [[nodiscard]] std::vector<kernels::Kernel> combine_forward() const;
  [[nodiscard]] std::vector<kernels::Kernel> combine_backward() const;

  /// Parameters of the layer's MoE part in the model: router h*E, E experts, shared experts.
  [[nodiscard]] double parameters() const;
  /// Parameters of one routed expert (and of the shared MLP), in the model.
  [[nodiscard]] double expert_parameters() const;
  [[nodiscard]] double shared_parameters() const;
  /// Bytes the MoE part keeps for backward on a device whose experts process `expert_tokens`
  /// token copies (after the all-gather), for `recompute` (full: nothing beyond the layer input,
  /// which the dense part counts).
  [[nodiscard]] double activation_bytes(double expert_tokens, config::Recompute recompute) const;

private:
  /// An expert MLP on this device: hidden h, inner f (of this tensor rank), matrices in the up
  /// projection (2 when gated), token copies it processes, bytes per element.
  struct MlpShape {
    long long h, f, up;
    double copies, e;
  };
  [[nodiscard]] MlpShape mlp_shape(const std::vector<double>& tokens, double width) const;
  [[nodiscard]] double mlp_parameters(double width) const;
  [[nodiscard]] std::vector<kernels::Kernel> mlp_forward(const std::string& name, const std::vector<double>& tokens,
                                                         double width) const;
  [[nodiscard]] std::vector<kernels::Kernel> mlp_backward(const std::string& name, const std::vector<double>& tokens,
                                                          double width) const;

  const TransformerModel& model_;
  int layer_;
};

}  // namespace clearfog::workload
