#pragma once
// Multi-head latent attention (DeepSeek-V2 §2.1, DeepSeek-V3 §2.1.1) of one transformer layer on one
// device, as its GEMMs: queries through a low-rank latent (h -> q_lora -> heads x (nope + rope)),
// keys and values through a shared latent (h -> kv_lora + rope -> heads x (nope + v)), a decoupled
// rotary key of rope dimensions shared by all heads, attention over q.k of nope + rope dimensions
// and values of v dimensions, and the output projection. Training computes the up-projections
// explicitly (no absorption; that is an inference trick). docs/moe.md, "DeepSeek-V3".
//
// Tensor parallelism splits the heads (q_up, kv_up column-parallel, proj row-parallel); the two
// down-projections and their norms are replicated on every tensor rank, each computing them over
// the whole sequence (Megatron-Core's MLA with tensor parallelism). Their replicated gradients'
// all-reduce over the tensor group is not modelled (<= 10 % of the layer's attention parameters).
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "kernels/Kernel.hpp"
#include "workload/ModelDescription.hpp"
#include "workload/TransformerModel.hpp"

namespace clearfog::workload {

class TransformerMla {
public:
  /// Layer `layer` of `model`, whose spec has MLA (TransformerSpec::mla()).
  TransformerMla(const TransformerModel& model, int layer);

  /// ln1, the down- and up-projections with their latent norms, rotary embedding, attention, proj.
  [[nodiscard]] std::vector<kernels::Kernel> forward() const;
  /// Everything forward does, backwards; ln2 and the first residual as for standard attention.
  [[nodiscard]] std::vector<kernels::Kernel> backward() const;
  /// Parameters of the attention part in the model (projections and latent norms, not ln1).
  [[nodiscard]] double parameters() const;
  /// The attention part's tensors as one tensor rank of `t` holds them.
  [[nodiscard]] std::vector<ParamTensor> device_params(int t) const;
  /// Bytes the attention part keeps for backward besides the residual-stream tensors (its input,
  /// ln1's output) and the scores or logsumexp, which the layer's formula counts as for any
  /// attention: the latents before and after their norms, the rope key, Q, K, V and the output.
  [[nodiscard]] double saved_bytes() const;

private:
  const TransformerModel& model_;
  int layer_;
};

}  // namespace clearfog::workload
