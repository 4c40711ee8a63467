// The transformer workload type's model description: embedding, layers and head as blocks, with
// Megatron-LM's tensor-parallel collectives between their kernels (Shoeybi et al. 2019; sequence
// parallelism: Korthikanti et al. 2022). docs/workloads.md.
#include <fmt/format.h>

#include "workload/TransformerModel.hpp"
#include "workload/types/TransformerType.hpp"

namespace clearfog::workload {

using config::CollectiveOp;
using config::Recompute;

namespace {

/// The collectives Megatron places where a layer's row-parallel output (forward) or
/// column-parallel input gradient (backward) must be summed over the tensor group: an all-reduce,
/// or with sequence parallelism a reduce-scatter into the sequence shard and the all-gather the
/// next column-parallel GEMM needs (placed together, between the two parts).
CommPoint tensor_reduce(std::string name, const DescribeOptions& o, double bytes) {
  CommPoint c{std::move(name), {}, bytes};
  if (o.tp > 1)
    c.ops = o.sequence_parallel ? std::vector<CollectiveOp>{CollectiveOp::ReduceScatter, CollectiveOp::AllGather}
                                : std::vector<CollectiveOp>{CollectiveOp::AllReduce};
  return c;
}

/// One collective of `op` when tensor-parallel (and, if `only_with_sp`, sequence-parallel).
CommPoint tensor_op(std::string name, const DescribeOptions& o, CollectiveOp op, double bytes, int times = 1) {
  CommPoint c{std::move(name), {}, bytes};
  if (o.tp > 1) c.ops.assign(static_cast<std::size_t>(times), op);
  return c;
}

struct Context {
  const TransformerModel& model;
  const DescribeOptions& options;
  double activation_B;  // b*s*h elements of the residual stream, whole sequence, in bytes
};

ParamTensor sharded(std::string name, double model_elements, int tp) {
  return ParamTensor{std::move(name), model_elements / tp, model_elements, ""};
}
ParamTensor replicated(std::string name, double elements) { return ParamTensor{std::move(name), elements, elements, ""}; }

Block embedding_block(const Context& c) {
  const auto& w = c.model.spec();
  const auto& o = c.options;
  const double h = w.hidden;
  Block b;
  b.name = b.type = "embedding";
  b.pipeline_unit = false;
  // Vocabulary-parallel lookup: each rank fills in its shard's rows, an all-reduce (a
  // reduce-scatter with sequence parallelism) completes the activation; dropout follows.
  b.forward = {{"lookup", c.model.embedding_forward(),
                o.sequence_parallel ? tensor_op("tp", o, CollectiveOp::ReduceScatter, c.activation_B)
                                    : tensor_op("tp", o, CollectiveOp::AllReduce, c.activation_B)},
               {"dropout", c.model.embedding_dropout_forward(), CommPoint{"none", {}, 0}}};
  // The backward of a reduce-scatter is an all-gather; an all-reduce's backward is the identity.
  b.backward = {{"dropout", c.model.embedding_dropout_backward(),
                 o.sequence_parallel ? tensor_op("tp", o, CollectiveOp::AllGather, c.activation_B)
                                     : CommPoint{"tp", {}, 0}},
                {"lookup", c.model.embedding_backward(), CommPoint{"none", {}, 0}}};
  if (w.position == PositionKind::Learned)
    b.params.push_back(replicated("position", static_cast<double>(w.seq_length) * h));
  b.params.push_back(sharded("word", static_cast<double>(w.vocab_size) * h, o.tp));
  b.saved_activation_B.fill(c.model.embedding_activation_bytes());
  b.output_B = c.activation_B;
  b.output_replicated = !o.sequence_parallel;
  return b;
}

Block layer_block(const Context& c, int l, const LayerShape& default_shape) {
  const auto& w = c.model.spec();
  const auto& o = c.options;
  const LayerShape shape = w.layer(l);
  Block b;
  b.name = fmt::format("L{}", l);
  b.type = shape == default_shape
               ? "layer"
               : fmt::format("layer.f{}.{}.kv{}", shape.ffn_hidden, mlp_name(shape.mlp), shape.kv_heads);
  b.forward = {{"attn", c.model.attention_forward(l), tensor_reduce("tp1", o, c.activation_B)},
               {"mlp", c.model.mlp_forward(l), tensor_reduce("tp2", o, c.activation_B)}};
  b.backward = {{"mlp", c.model.mlp_backward(l), tensor_reduce("tp1", o, c.activation_B)},
                {"attn", c.model.attention_backward(l), tensor_reduce("tp2", o, c.activation_B)}};
  b.selective_recompute = c.model.attention_core_forward(l);
  b.checkpointable = true;
  // Gradients in the order backward completes them (PyTorch reduces in reverse registration order).
  const double h = w.hidden, d = w.resolved_head_dim(), a = w.heads, kv = shape.kv_heads, f = shape.ffn_hidden;
  const double up = gated(shape.mlp) ? 2 : 1;
  const double norm = w.norm == NormKind::LayerNorm && w.bias ? 2 * h : h;
  const int t = o.tp;
  auto& p = b.params;
  if (w.bias) p.push_back(replicated("fc2.bias", h));  // added after the all-reduce: on every rank
  p.push_back(sharded("fc2.weight", f * h, t));
  if (w.bias) p.push_back(sharded("fc1.bias", up * f, t));
  p.push_back(sharded("fc1.weight", h * up * f, t));
  p.push_back(replicated("ln2", norm));
  if (w.bias) p.push_back(replicated("proj.bias", h));
  p.push_back(sharded("proj.weight", a * d * h, t));
  if (w.bias) p.push_back(sharded("qkv.bias", (a + 2 * kv) * d, t));
  p.push_back(sharded("qkv.weight", h * (a + 2 * kv) * d, t));
  p.push_back(replicated("ln1", norm));
  for (const Recompute r : config::kAllRecomputes)
    b.saved_activation_B[policy_index(r)] = c.model.layer_activation_bytes(l, r);
  b.output_B = c.activation_B;
  b.output_replicated = !o.sequence_parallel;
  return b;
}

Block head_block(const Context& c) {
  const auto& w = c.model.spec();
  const auto& o = c.options;
  const double h = w.hidden;
  constexpr double kLossElementBytes = 4;  // fp32 row statistics of the vocabulary-parallel loss
  const double rows_B = kLossElementBytes * c.model.micro_batch() * static_cast<double>(w.seq_length);
  Block b;
  b.name = b.type = "head";
  b.pipeline_unit = false;
  // With sequence parallelism the final norm works on s/t and its output is all-gathered for the
  // column-parallel logits GEMM. The vocabulary-parallel cross-entropy all-reduces three fp32 row
  // statistics (max logit, target logit, sum of exponentials; Megatron's cross_entropy.py).
  b.forward = {{"norm", c.model.final_norm_forward(),
                o.sequence_parallel ? tensor_op("sp", o, CollectiveOp::AllGather, c.activation_B)
                                    : CommPoint{"sp", {}, 0}},
               {"logits", c.model.logits_forward(), tensor_op("ce", o, CollectiveOp::AllReduce, rows_B, 3)}};
  // The logits' input gradient is summed over the tensor group (reduce-scattered with sequence
  // parallelism) before the final norm's backward.
  b.backward = {{"logits", c.model.logits_backward(),
                 o.sequence_parallel ? tensor_op("tp", o, CollectiveOp::ReduceScatter, c.activation_B)
                                     : tensor_op("tp", o, CollectiveOp::AllReduce, c.activation_B)},
                {"norm", c.model.final_norm_backward(), CommPoint{"none", {}, 0}}};
  ParamTensor logits = sharded("logits.weight", static_cast<double>(w.vocab_size) * h, o.tp);
  if (w.tie_embeddings) logits.tied_to = "embedding.word";
  b.params.push_back(logits);
  b.params.push_back(replicated("final_ln", w.norm == NormKind::LayerNorm && w.bias ? 2 * h : h));
  b.saved_activation_B.fill(c.model.head_activation_bytes());
  b.output_B = 0;
  return b;
}

}  // namespace

ModelDescription TransformerType::describe(const config::WorkloadSpec& workload, const DescribeOptions& o) const {
  const auto& spec = workload.as<TransformerSpec>();
  const TransformerModel model(spec, o.micro_batch, o.precision, TensorSharding{o.tp, o.sequence_parallel},
                               o.attention);
  const Context c{model, o,
                  static_cast<double>(o.micro_batch) * spec.seq_length * spec.hidden * dtype_bytes(o.precision)};
  ModelDescription d;
  d.type = std::string(name());
  d.micro_batch = o.micro_batch;
  d.tensor_parallel = o.tp;
  d.tokens_per_sample = spec.seq_length;
  d.sample_unit = "sequences";
  d.blocks.push_back(embedding_block(c));
  const LayerShape default_shape{spec.resolved_ffn_hidden(), spec.mlp, spec.resolved_kv_heads()};
  for (int l = 0; l < spec.layers; ++l) d.blocks.push_back(layer_block(c, l, default_shape));
  d.blocks.push_back(head_block(c));
  return d;
}

std::string TransformerType::shape_text(const config::WorkloadSpec& workload) const {
  const auto& w = workload.as<TransformerSpec>();
  std::string text = fmt::format("{} layers, hidden {}, {} heads", w.layers, w.hidden, w.heads);
  if (w.resolved_kv_heads() != w.heads) text += fmt::format(" ({} KV)", w.resolved_kv_heads());
  if (w.head_dim > 0 && static_cast<long long>(w.head_dim) * w.heads != w.hidden) text += fmt::format(" of {}", w.head_dim);
  text += fmt::format(", {} MLP {}", mlp_name(w.mlp), w.resolved_ffn_hidden());
  if (!w.overrides.empty()) text += fmt::format(" ({} overrides)", w.overrides.size());
  text += fmt::format(", {}, {} positions", norm_name(w.norm), position_name(w.position));
  if (!w.tie_embeddings) text += ", untied embeddings";
  if (!w.bias) text += ", no biases";
  if (!w.dropout) text += ", no dropout";
  text += fmt::format(", sequence {}, vocabulary {}", w.seq_length, w.vocab_size);
  return text;
}

}  // namespace clearfog::workload
