#pragma once
// A GPT-style transformer broken into the kernels one device runs, for one micro-batch.
// Pure: no engine, no costs — planners price the kernels with a KernelCostModel.
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "config/WorkloadSpec.hpp"
#include "core/DType.hpp"
#include "kernels/Kernel.hpp"

namespace clearfog::workload {

/// How one layer is split over a tensor-parallel group (Megatron: Shoeybi et al. 2019).
struct TensorSharding {
  int tp = 1;                      // t: heads, MLP hidden and vocabulary split t ways
  bool sequence_parallel = false;  // layernorm and dropout work on s/t of the sequence
};

/// Bytes and FLOPs per parameter of one optimizer step (docs/compute-model.md, "Optimizer").
struct OptimizerTraffic {
  double bytes_per_parameter = 0;
  double flops_per_parameter = 0;
};
/// Megatron-LM's optimizer step: gradient norm and the update on fp32 state, plus with 16-bit
/// training the fp32 copies of the gradients and weights (and, with fp16, the unscale pass).
OptimizerTraffic optimizer_traffic(bool adam, DType precision);

/// Bytes moved per logit by Megatron's fp32 softmax cross-entropy, forward and backward, for
/// logits of `element_bytes` bytes.
double cross_entropy_forward_bytes_per_logit(double element_bytes);
double cross_entropy_backward_bytes_per_logit(double element_bytes);

class TransformerModel {
public:
  /// micro_batch: sequences per pass; dtype: activation/weight arithmetic type. Throws
  /// clearfog::Error on a non-positive dimension or hidden not divisible by heads; ffn_hidden 0
  /// becomes 4 * hidden (spec().ffn_hidden then says so).
  TransformerModel(const config::WorkloadSpec& spec, int micro_batch, DType dtype);
  /// The kernels one rank of a tensor-parallel group runs: QKV and fc1 column-parallel (n / t),
  /// projection and fc2 row-parallel (k / t), heads / t attention heads, the logits GEMM and
  /// cross-entropy vocabulary-parallel (V / t). Throws clearfog::Error unless t divides heads.
  TransformerModel(const config::WorkloadSpec& spec, int micro_batch, DType dtype, TensorSharding sharding);
  /// Same, with the attention kernels chosen: Fused replaces attn_scores, softmax, attn_dropout and
  /// attn_v by one `attention` kernel (FlashAttention-2 style) and their six backward kernels by
  /// one `attention.bwd`.
  TransformerModel(const config::WorkloadSpec& spec, int micro_batch, DType dtype, TensorSharding sharding,
                   config::Attention attention);

  /// layer_forward() cut where Megatron's forward all-reduces (g operator) sit: [0] ln1 … proj
  /// (all-reduce after it), [1] dropout_add1 … dropout_add2 (all-reduce after fc2).
  [[nodiscard]] std::vector<std::vector<kernels::Kernel>> layer_forward_parts() const;
  /// layer_backward() cut where the backward all-reduces (f operator) sit: [0] dropout_add2.bwd …
  /// fc1 (all-reduce of the fc1 input gradient), [1] ln2.bwd … ln1.bwd (all-reduce after qkv).
  [[nodiscard]] std::vector<std::vector<kernels::Kernel>> layer_backward_parts() const;
  /// Selective recomputation (Korthikanti et al. 2022): the attention core re-run in backward
  /// (attn_scores, softmax, attn_dropout, attn_v). Empty with fused attention: its backward kernel
  /// recomputes the scores itself (and is priced with that work), so there is nothing more to re-run.
  [[nodiscard]] std::vector<kernels::Kernel> attention_core_forward() const;
  [[nodiscard]] const TensorSharding& sharding() const { return sharding_; }
  [[nodiscard]] config::Attention attention() const { return attention_; }

  /// Kernels of one transformer layer's forward pass (layernorm, QKV, attention scores,
  /// softmax, attention over V, projection, dropout/residual, layernorm, MLP fc1, GeLU, fc2, ...).
  [[nodiscard]] std::vector<kernels::Kernel> layer_forward() const;
  /// Backward of one layer: for each GEMM a data-gradient and a weight-gradient GEMM,
  /// memory-bound backward ops for the rest.
  [[nodiscard]] std::vector<kernels::Kernel> layer_backward() const;
  /// Token + position embedding lookup (forward) and its gradient scatter (backward).
  [[nodiscard]] std::vector<kernels::Kernel> embedding_forward() const;
  [[nodiscard]] std::vector<kernels::Kernel> embedding_backward() const;
  /// Final layernorm, logits GEMM against the (tied) embedding, softmax cross-entropy.
  [[nodiscard]] std::vector<kernels::Kernel> head_forward() const;
  [[nodiscard]] std::vector<kernels::Kernel> head_backward() const;
  /// One optimizer step over `parameters` parameters trained in `precision`, as one memory-bound
  /// kernel with the traffic of optimizer_traffic(); priced at `arithmetic`'s peak (fp32 where the
  /// accelerator has it; the step stays memory-bound either way).
  [[nodiscard]] static kernels::Kernel optimizer_step(double parameters, bool adam, DType precision,
                                                      DType arithmetic);

  /// Parameters of one transformer layer: 4h^2 + 2hf + 9h + f, i.e. 12h^2 + 13h at f = 4h
  /// (Megatron Eq. 2's per-layer part).
  [[nodiscard]] double parameters_per_layer() const;
  /// Token (V*h) plus position (s*h) embeddings.
  [[nodiscard]] double embedding_parameters() const;
  /// Final layernorm (2h).
  [[nodiscard]] double head_parameters() const;
  [[nodiscard]] double total_parameters() const;

  [[nodiscard]] const config::WorkloadSpec& spec() const { return spec_; }
  [[nodiscard]] int micro_batch() const { return micro_batch_; }
  [[nodiscard]] DType dtype() const { return dtype_; }

private:
  [[nodiscard]] bool fused_attention() const { return attention_ == config::Attention::Fused; }

  config::WorkloadSpec spec_;
  int micro_batch_;
  DType dtype_;
  TensorSharding sharding_;
  config::Attention attention_ = config::Attention::Unfused;
};

}  // namespace clearfog::workload
