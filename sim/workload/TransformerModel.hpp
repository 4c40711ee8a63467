#pragma once
// A decoder-only transformer broken into the kernels one device runs, for one micro-batch, and the
// bytes it keeps for backward. Pure: no engine, no costs — planners price the kernels with a
// KernelCostModel. The transformer workload type (workload/types/TransformerType.cpp) turns these
// kernels into the blocks of a model description.
#include <string>
#include <vector>

#include "config/FrameworkProfile.hpp"
#include "config/ScenarioSpec.hpp"
#include "core/DType.hpp"
#include "kernels/Kernel.hpp"
#include "workload/OpCheckpointPolicy.hpp"
#include "workload/types/TransformerSpec.hpp"

namespace clearfog::workload {

namespace parts {
struct Dims;
}  // namespace parts

/// How one layer is split over a tensor-parallel group (Megatron: Shoeybi et al. 2019).
struct TensorSharding {
  int tp = 1;                      // t: heads, KV heads, MLP hidden and vocabulary split t ways
  bool sequence_parallel = false;  // norms, dropouts and residual adds work on s/t of the sequence
};

/// Bytes moved per logit by Megatron's fp32 softmax cross-entropy, forward and backward, for
/// logits of `element_bytes` bytes.
double cross_entropy_forward_bytes_per_logit(double element_bytes);
double cross_entropy_backward_bytes_per_logit(double element_bytes);
/// The same for a cross-entropy fused into one kernel in the logits' dtype (KernelFusions::cross_entropy).
double fused_cross_entropy_forward_bytes_per_logit(double element_bytes);
double fused_cross_entropy_backward_bytes_per_logit(double element_bytes);

class TransformerModel {
public:
  /// micro_batch: sequences per pass; dtype: the training precision. Every kernel runs in it,
  /// except with fp8: then only the weight GEMMs do, after a cast of their operands, and
  /// activations, attention and the memory-bound kernels stay in bf16 (gemm_dtype(), dtype()). Throws
  /// clearfog::Error on a non-positive dimension, hidden not divisible by heads (without an
  /// explicit head_dim), heads not divisible by the KV heads, or a tensor-parallel degree that
  /// does not divide heads, KV heads and every layer's ffn_hidden.
  TransformerModel(const TransformerSpec& spec, int micro_batch, DType dtype, TensorSharding sharding = {},
                   config::Attention attention = config::Attention::Unfused, config::KernelFusions fusions = {});

  /// Layer `l`'s forward: attention part (norm, QKV, rotary, attention core, projection: Megatron's
  /// first all-reduce follows it) and MLP part (residual, norm, MLP, residual: the second follows).
  [[nodiscard]] std::vector<kernels::Kernel> attention_forward(int layer = 0) const;
  [[nodiscard]] std::vector<kernels::Kernel> mlp_forward(int layer = 0) const;
  /// Layer `l`'s backward, cut where the backward all-reduces sit: MLP part (down to the fc1 input
  /// gradient), then attention part (down to the QKV input gradient and the first norm).
  [[nodiscard]] std::vector<kernels::Kernel> mlp_backward(int layer = 0) const;
  [[nodiscard]] std::vector<kernels::Kernel> attention_backward(int layer = 0) const;
  /// The two parts one after the other.
  [[nodiscard]] std::vector<kernels::Kernel> layer_forward(int layer = 0) const;
  [[nodiscard]] std::vector<kernels::Kernel> layer_backward(int layer = 0) const;
  /// Selective recomputation (Korthikanti et al. 2022): the attention core re-run in backward
  /// (attn_scores, softmax, attn_dropout, attn_v). Empty with fused attention: its backward kernel
  /// recomputes the scores itself (and is priced with that work), so there is nothing more to re-run.
  [[nodiscard]] std::vector<kernels::Kernel> attention_core_forward(int layer = 0) const;
  /// Per-op checkpointing of a dense layer (docs/recompute.md): the forward kernels it re-runs
  /// and the bytes it keeps besides the layer input: the saved kernel outputs and, with sequence
  /// parallelism, the two reduce-scatters' outputs.
  [[nodiscard]] OpCheckpointSplit op_checkpoint(int layer = 0) const;

  /// Token (+ learned position) embedding lookup; backward: the scatter-add into the embedding
  /// gradients.
  [[nodiscard]] std::vector<kernels::Kernel> embedding_forward() const;
  [[nodiscard]] std::vector<kernels::Kernel> embedding_backward() const;
  /// The embedding's dropout (on the sequence shard with sequence parallelism); empty without dropout.
  [[nodiscard]] std::vector<kernels::Kernel> embedding_dropout_forward() const;
  [[nodiscard]] std::vector<kernels::Kernel> embedding_dropout_backward() const;
  /// Final norm; logits GEMM and vocabulary-parallel softmax cross-entropy; their backward.
  [[nodiscard]] std::vector<kernels::Kernel> final_norm_forward() const;
  [[nodiscard]] std::vector<kernels::Kernel> logits_forward() const;
  [[nodiscard]] std::vector<kernels::Kernel> logits_backward() const;
  [[nodiscard]] std::vector<kernels::Kernel> final_norm_backward() const;
  /// final_norm_forward() + logits_forward(), and logits_backward() + final_norm_backward().
  [[nodiscard]] std::vector<kernels::Kernel> head_forward() const;
  [[nodiscard]] std::vector<kernels::Kernel> head_backward() const;

  /// Parameters of the model (not per device), docs/workloads.md: attention h(a + 2k)d + a·d·h,
  /// MLP (2 or 3)·h·f, norms, and biases when the model has them; 12h^2 + 13h for a GPT layer.
  [[nodiscard]] double parameters_per_layer(int layer = 0) const;
  /// Token (V*h) plus learned position (s*h) embeddings.
  [[nodiscard]] double embedding_parameters() const;
  /// Final norm, plus the output projection (V*h) when the embeddings are not tied.
  [[nodiscard]] double head_parameters() const;
  [[nodiscard]] double total_parameters() const;

  /// Bytes layer `l` keeps for its backward, one micro-batch, this device, under `recompute`
  /// (Korthikanti et al. 2022, Table 2, generalized; docs/workloads.md).
  /// For a MoE layer: its attention part only; the MoE part is TransformerMoe::activation_bytes.
  [[nodiscard]] double layer_activation_bytes(int layer, config::Recompute recompute) const;
  [[nodiscard]] double embedding_activation_bytes() const;
  [[nodiscard]] double head_activation_bytes() const;
  /// The unfused cross-entropy's backward on fp32 logits holds, beside the saved fp32
  /// probabilities, the gradient it receives and the one it returns: 2 x 4 bytes per logit of this
  /// rank (PyTorch's log_softmax backward; docs/compute-model.md, "Memory"). 0 when fused: the
  /// kernel writes the gradient over the logits.
  [[nodiscard]] double loss_transient_bytes() const;

  [[nodiscard]] const TransformerSpec& spec() const { return spec_; }
  [[nodiscard]] int micro_batch() const { return micro_batch_; }
  /// Activations, attention and the memory-bound kernels (bf16 when training in fp8).
  [[nodiscard]] DType dtype() const { return dtype_; }
  /// The weight GEMMs (qkv, proj, MLP, experts): the training precision.
  [[nodiscard]] DType gemm_dtype() const { return gemm_dtype_; }
  [[nodiscard]] const TensorSharding& sharding() const { return sharding_; }
  [[nodiscard]] config::Attention attention() const { return attention_; }
  [[nodiscard]] const config::KernelFusions& fusions() const { return fusions_; }

private:
  /// A norm's kernels: one fused kernel, or (unfused) a statistics pass before it.
  void push_norm_forward(std::vector<kernels::Kernel>& out, const std::string& name, double elements) const;
  void push_norm_backward(std::vector<kernels::Kernel>& out, const std::string& name, double elements,
                          bool accumulate_residual) const;
  [[nodiscard]] bool fused_attention() const { return attention_ == config::Attention::Fused; }
  /// PyTorch eager pointwise ops (KernelFusions::pointwise off): the RMSNorm, the SwiGLU gate and
  /// the rotary embedding as one kernel per op (EagerPointwise.hpp).
  [[nodiscard]] bool eager_pointwise() const;
  void push_rotary(std::vector<kernels::Kernel>& out, const std::string& name, const parts::Dims& d, bool forward) const;
  void push_activation(std::vector<kernels::Kernel>& out, MlpKind mlp, const parts::Dims& d, bool forward) const;
  /// The weight GEMMs that read a branch's normalised input: fused (qkv; fc1) or, without
  /// KernelFusions::projections, one per nn.Linear (q, k, v; fc1_gate, fc1_up for a gated MLP).
  enum class Branch { Attention, Mlp };
  struct Projection {
    std::string name;
    kernels::GemmShape shape;
  };
  [[nodiscard]] std::vector<Projection> input_projections(int layer, Branch branch) const;
  /// Forward: their GEMMs; backward: theirs in reverse, then the adds of their input gradients.
  void push_input_projections(std::vector<kernels::Kernel>& out, const std::vector<Projection>& projections,
                              bool forward) const;

  TransformerSpec spec_;
  int micro_batch_;
  DType dtype_;
  DType gemm_dtype_;
  TensorSharding sharding_;
  config::Attention attention_;
  config::KernelFusions fusions_;
};

}  // namespace clearfog::workload
