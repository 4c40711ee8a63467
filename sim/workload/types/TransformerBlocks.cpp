// The transformer workload type's model description: embedding, layers and head as blocks, with
// Megatron-LM's tensor-parallel collectives between their kernels (Shoeybi et al. 2019; sequence
// parallelism: Korthikanti et al. 2022). docs/workloads.md.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "workload/ExpertRouting.hpp"
#include "workload/TransformerMla.hpp"
#include "workload/TransformerModel.hpp"
#include "workload/TransformerMoe.hpp"
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
  auto c = CommPoint::named(std::move(name), bytes);
  if (o.tp > 1)
    c.ops = o.sequence_parallel ? std::vector<CollectiveOp>{CollectiveOp::ReduceScatter, CollectiveOp::AllGather}
                                : std::vector<CollectiveOp>{CollectiveOp::AllReduce};
  return c;
}

/// One collective of `op` when tensor-parallel (and, if `only_with_sp`, sequence-parallel).
CommPoint tensor_op(std::string name, const DescribeOptions& o, CollectiveOp op, double bytes, int times = 1) {
  auto c = CommPoint::named(std::move(name), bytes);
  if (o.tp > 1) c.ops.assign(static_cast<std::size_t>(times), op);
  return c;
}

/// An MoE layer's routing as DeepEP's exchange needs it: each member's tokens, the experts, top-k.
struct ExchangeShape {
  double tokens_per_member;
  int experts, top_k;
};

struct Context {
  const TransformerModel& model;
  const DescribeOptions& options;
  double activation_B;  // b*s*h elements of the residual stream, whole sequence, in bytes
};

/// A tensor split over the tensor group; `device_rows` is its first dimension on one rank (the
/// output features of a weight, 1 for a vector).
ParamTensor sharded(std::string name, double model_elements, int tp, double device_rows = 1) {
  ParamTensor p{std::move(name), model_elements / tp, model_elements, ""};
  p.rows = device_rows;
  return p;
}
ParamTensor replicated(std::string name, double elements, double rows = 1) {
  ParamTensor p{std::move(name), elements, elements, ""};
  p.rows = rows;
  return p;
}

/// A layer's second norm and attention tensors, in the order backward completes their gradients
/// (after the MLP's or the experts').
void push_attention_params(std::vector<ParamTensor>& p, const TransformerModel& model, int layer, int t) {
  const auto& w = model.spec();
  const LayerShape shape = w.layer(layer);
  const double h = w.hidden, d = w.resolved_head_dim(), a = w.heads, kv = shape.kv_heads;
  const double norm = w.norm == NormKind::LayerNorm && w.bias ? 2 * h : h;
  p.push_back(replicated("ln2", norm));
  if (w.mla()) {
    const auto mla = TransformerMla(model, layer).device_params(t);
    p.insert(p.end(), mla.begin(), mla.end());
    p.push_back(replicated("ln1", norm));
    return;
  }
  if (w.bias) p.push_back(replicated("proj.bias", h));
  p.push_back(sharded("proj.weight", a * d * h, t, h));  // row-parallel: h x a*d/t
  if (w.bias) p.push_back(sharded("qkv.bias", (a + 2 * kv) * d, t));
  p.push_back(sharded("qkv.weight", h * (a + 2 * kv) * d, t, (a + 2 * kv) * d / t));
  p.push_back(replicated("ln1", norm));
}

Block embedding_block(const Context& c) {
  const auto& w = c.model.spec();
  const auto& o = c.options;
  const double h = w.hidden;
  Block b;
  b.name = b.type = "embedding";
  b.pipeline_unit = false;
  // Vocabulary-parallel lookup: each rank fills in its shard's rows, an all-reduce (a
  // reduce-scatter with sequence parallelism) completes the activation; dropout follows.
  b.forward = {make_segment("lookup", c.model.embedding_forward(),
                o.sequence_parallel ? tensor_op("tp", o, CollectiveOp::ReduceScatter, c.activation_B)
                                    : tensor_op("tp", o, CollectiveOp::AllReduce, c.activation_B)),
               make_segment("dropout", c.model.embedding_dropout_forward())};
  // The backward of a reduce-scatter is an all-gather; an all-reduce's backward is the identity.
  b.backward = {make_segment("dropout", c.model.embedding_dropout_backward(),
                 o.sequence_parallel ? tensor_op("tp", o, CollectiveOp::AllGather, c.activation_B)
                                     : CommPoint::named("tp")),
                make_segment("lookup", c.model.embedding_backward())};
  if (w.position == PositionKind::Learned)
    b.params.push_back(replicated("position", static_cast<double>(w.seq_length) * h, static_cast<double>(w.seq_length)));
  b.params.push_back(sharded("word", static_cast<double>(w.vocab_size) * h, o.tp, static_cast<double>(w.vocab_size) / o.tp));
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
  b.forward = {make_segment("attn", c.model.attention_forward(l), tensor_reduce("tp1", o, c.activation_B)),
               make_segment("mlp", c.model.mlp_forward(l), tensor_reduce("tp2", o, c.activation_B))};
  b.backward = {make_segment("mlp", c.model.mlp_backward(l), tensor_reduce("tp1", o, c.activation_B)),
                make_segment("attn", c.model.attention_backward(l), tensor_reduce("tp2", o, c.activation_B))};
  b.partial_recompute[policy_index(Recompute::Selective)] = c.model.attention_core_forward(l);
  b.partial_recompute[policy_index(Recompute::Op)] = c.model.op_checkpoint(l).recomputed;
  b.checkpointable = true;
  // Gradients in the order backward completes them (PyTorch reduces in reverse registration order).
  const double h = w.hidden, f = shape.ffn_hidden;
  const double up = gated(shape.mlp) ? 2 : 1;
  const int t = o.tp;
  auto& p = b.params;
  if (w.bias) p.push_back(replicated("fc2.bias", h));  // added after the all-reduce: on every rank
  p.push_back(sharded("fc2.weight", f * h, t, h));  // row-parallel: h x f/t
  if (w.bias) p.push_back(sharded("fc1.bias", up * f, t));
  p.push_back(sharded("fc1.weight", h * up * f, t, up * f / t));
  push_attention_params(p, c.model, l, t);
  for (const Recompute r : config::kAllRecomputes)
    b.saved_activation_B[policy_index(r)] = c.model.layer_activation_bytes(l, r);
  b.output_B = c.activation_B;
  b.output_replicated = !o.sequence_parallel;
  return b;
}

/// An all-to-all over the expert group: the token copies `routed` sends (Megatron's dispatcher), or
/// with DeepEP one copy per token and device its experts reach, `bytes_per_token` each; transposed
/// for the way back. None without expert parallelism.
CommPoint expert_exchange(std::string name, const DescribeOptions& o, const RoutedTokens& routed,
                          const ExchangeShape& shape, double bytes_per_token, bool transpose) {
  auto c = CommPoint::named(std::move(name));
  c.group = CommGroup::Expert;
  if (o.ep == 1) return c;
  c.ops = {CollectiveOp::AllToAll};
  const std::size_t n = routed.sent.size();
  const bool deepep = o.moe.dispatcher == config::Dispatcher::DeepEp;
  c.matrix.assign(n, std::vector<double>(n, 0.0));
  std::vector<double> reached(n, 0.0);  // deepep: tokens of each member that reach member j
  if (deepep)
    for (std::size_t j = 0; j < n; ++j)
      reached[j] = shape.tokens_per_member * reach_probability(routed.member_share[j], shape.experts, shape.top_k);
  double total = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t to = transpose ? i : j, from = transpose ? j : i;
      const double tokens = deepep ? (from == to ? 0.0 : reached[to]) : routed.sent[from][to];
      c.matrix[i][j] = bytes_per_token * tokens;
      total += c.matrix[i][j];
    }
  c.bytes = total / static_cast<double>(n);
  if (deepep) c.dedup = CommPoint::Deduplication{routed.member_share, shape.experts, shape.top_k};
  return c;
}

/// The shared experts' collectives: a dense MLP's under sequence parallelism; none without them.
CommPoint shared_op(std::string name, const Context& c, CollectiveOp op) {
  if (c.model.spec().shared_experts == 0) return CommPoint::named(std::move(name));
  return tensor_op(std::move(name), c.options, op, c.activation_B);
}

/// A tensor-group collective over the token copies each expert rank received (all tensor ranks').
CommPoint expert_tensor_op(std::string name, const DescribeOptions& o, CollectiveOp op, const RoutedTokens& routed,
                           double bytes_per_copy) {
  auto c = tensor_op(std::move(name), o, op, 0);
  for (std::size_t j = 0; j < routed.processed.size(); ++j)
    c.bytes_by_expert_rank.push_back(o.tp * routed.received(static_cast<int>(j)) * bytes_per_copy);
  c.bytes = *std::max_element(c.bytes_by_expert_rank.begin(), c.bytes_by_expert_rank.end());
  return c;
}

/// A layer whose MLP is a Mixture of Experts (docs/moe.md), Megatron-Core's all-to-all dispatcher:
/// the router works on this tensor rank's sequence shard; the token copies go to the expert ranks
/// (all-to-all over the expert group), are all-gathered over the tensor group (experts are
/// sharded like an MLP), run through the grouped expert GEMMs, are reduce-scattered back, return
/// (all-to-all) and are combined with their routing weights.
/// Adds one MoE layer's routing to the model's running means.
void record_load(ExpertLoad& load, const RoutedTokens& routed) {
  double busiest = 0, total = 0;
  for (const auto& rank : routed.processed) {
    const double copies = std::accumulate(rank.begin(), rank.end(), 0.0);
    busiest = std::max(busiest, copies);
    total += copies;
  }
  const double imbalance = total > 0 ? busiest * static_cast<double>(routed.processed.size()) / total : 1.0;
  const double n = ++load.moe_layers;
  load.imbalance += (imbalance - load.imbalance) / n;
  load.dropped_share += (routed.dropped_share - load.dropped_share) / n;
}

Block moe_layer_block(const Context& c, int l, int moe_index, ExpertLoad& load) {
  const auto& w = c.model.spec();
  const auto& o = c.options;
  const TransformerMoe moe(c.model, l);
  const auto shares = expert_shares(o.moe, w.experts, w.top_k, moe_index);
  const RoutedTokens routed = route_tokens(shares, o.ep, moe.router_tokens(), w.top_k, w.capacity_factor);
  record_load(load, routed);
  const ExchangeShape shape{moe.router_tokens(), w.experts, w.top_k};
  // Tokens travel as activations (bf16 when training in fp8) unless the dispatch is narrower.
  const double e = dtype_bytes(c.model.dtype());
  const double dispatch_e = o.moe.dispatch_precision ? dtype_bytes(*o.moe.dispatch_precision) : e;
  const double h = w.hidden;
  std::vector<std::vector<double>> tokens(routed.processed.size());
  std::vector<std::vector<kernels::Kernel>> forward, backward;
  double busiest = 0;
  for (std::size_t j = 0; j < tokens.size(); ++j) {
    for (const double p : routed.processed[j]) tokens[j].push_back(p * o.tp);
    forward.push_back(moe.experts_forward(tokens[j]));
    backward.push_back(moe.experts_backward(tokens[j]));
    busiest = std::max(busiest, std::accumulate(tokens[j].begin(), tokens[j].end(), 0.0));
  }
  auto experts_fwd = make_segment("experts", {}, expert_tensor_op("tp.rs", o, CollectiveOp::ReduceScatter, routed, h * e));
  experts_fwd.kernels_by_expert_rank = std::move(forward);
  auto experts_bwd = make_segment("experts", {}, expert_tensor_op("tp.rs", o, CollectiveOp::ReduceScatter, routed, h * e));
  experts_bwd.kernels_by_expert_rank = std::move(backward);

  // The forward dispatch's sizes come from this micro-batch's routing; the backward reuses them.
  auto dispatch = expert_exchange("dispatch", o, routed, shape, h * dispatch_e, false);
  dispatch.counts_on_host = true;

  Block b;
  b.name = fmt::format("L{}", l);
  b.type = "layer.moe";
  // Sequence parallelism (required with tp > 1): the attention output is reduce-scattered into the
  // router's shard, and the layer output all-gathered for the next layer's attention.
  b.forward = {make_segment("attn", c.model.attention_forward(l), tensor_op("tp1", o, CollectiveOp::ReduceScatter, c.activation_B)),
               make_segment("router", moe.router_forward(), std::move(dispatch)),
               make_segment("shared", {}, shared_op("shared.ag", c, CollectiveOp::AllGather)),
               make_segment("shared", moe.shared_forward(), shared_op("shared.rs", c, CollectiveOp::ReduceScatter)),
               make_segment("experts.in", {}, expert_tensor_op("tp.ag", o, CollectiveOp::AllGather, routed, h * dispatch_e)),
               std::move(experts_fwd),
               make_segment("combine", {}, expert_exchange("combine", o, routed, shape, h * e, true)),
               make_segment("combine", moe.combine_forward(), tensor_op("tp2", o, CollectiveOp::AllGather, c.activation_B))};
  // Backward mirrors it: each collective's gradient is its transpose (all-gather <-> reduce-scatter,
  // the all-to-alls reversed).
  b.backward = {make_segment("combine", moe.combine_backward(), expert_exchange("combine.bwd", o, routed, shape, h * e, false)),
                make_segment("experts.in", {}, expert_tensor_op("tp.ag", o, CollectiveOp::AllGather, routed, h * e)),
                std::move(experts_bwd),
                make_segment("shared", {}, shared_op("shared.ag", c, CollectiveOp::AllGather)),
                make_segment("shared", moe.shared_backward(), shared_op("shared.rs", c, CollectiveOp::ReduceScatter)),
                make_segment("dispatch", {}, expert_exchange("dispatch.bwd", o, routed, shape, h * e, true)),
                make_segment("router", moe.router_backward(), tensor_op("tp1", o, CollectiveOp::AllGather, c.activation_B)),
                make_segment("attn", c.model.attention_backward(l), tensor_op("tp2", o, CollectiveOp::ReduceScatter, c.activation_B))};
  b.partial_recompute[policy_index(Recompute::Selective)] = c.model.attention_core_forward(l);
  b.checkpointable = true;
  const int t = o.tp;
  const double local_experts = static_cast<double>(w.experts) / o.ep;
  auto& p = b.params;
  if (w.shared_experts > 0) p.push_back(sharded("shared.weight", moe.shared_parameters(), t));
  ParamTensor experts{"experts.weight", local_experts * moe.expert_parameters() / t, w.experts * moe.expert_parameters(), ""};
  experts.expert = true;
  p.push_back(experts);
  p.push_back(replicated("router.weight", h * w.experts));
  push_attention_params(p, c.model, l, t);
  for (const Recompute r : config::kAllRecomputes)
    b.saved_activation_B[policy_index(r)] = c.model.layer_activation_bytes(l, r) + moe.activation_bytes(busiest, r);
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
  b.forward = {make_segment("norm", c.model.final_norm_forward(),
                o.sequence_parallel ? tensor_op("sp", o, CollectiveOp::AllGather, c.activation_B)
                                    : CommPoint::named("sp")),
               make_segment("logits", c.model.logits_forward(), tensor_op("ce", o, CollectiveOp::AllReduce, rows_B, 3))};
  // The logits' input gradient is summed over the tensor group (reduce-scattered with sequence
  // parallelism) before the final norm's backward.
  b.backward = {make_segment("logits", c.model.logits_backward(),
                 o.sequence_parallel ? tensor_op("tp", o, CollectiveOp::ReduceScatter, c.activation_B)
                                     : tensor_op("tp", o, CollectiveOp::AllReduce, c.activation_B)),
                make_segment("norm", c.model.final_norm_backward())};
  ParamTensor logits =
      sharded("logits.weight", static_cast<double>(w.vocab_size) * h, o.tp, static_cast<double>(w.vocab_size) / o.tp);
  if (w.tie_embeddings) logits.tied_to = "embedding.word";
  b.params.push_back(logits);
  b.params.push_back(replicated("final_ln", w.norm == NormKind::LayerNorm && w.bias ? 2 * h : h));
  b.saved_activation_B.fill(c.model.head_activation_bytes());
  b.backward_transient_B = c.model.loss_transient_bytes();
  b.output_B = 0;
  return b;
}

}  // namespace

ModelDescription TransformerType::describe(const config::WorkloadSpec& workload, const DescribeOptions& o) const {
  const auto& spec = workload.as<TransformerSpec>();
  const TransformerModel model(spec, o.micro_batch, o.precision, TensorSharding{o.tp, o.sequence_parallel},
                               o.attention, o.fusions);
  const Context c{model, o,
                  static_cast<double>(o.micro_batch) * spec.seq_length * spec.hidden * dtype_bytes(model.dtype())};
  ModelDescription d;
  d.type = std::string(name());
  d.micro_batch = o.micro_batch;
  d.tensor_parallel = o.tp;
  d.tokens_per_sample = spec.seq_length;
  d.sample_unit = "sequences";
  d.blocks.push_back(embedding_block(c));
  const LayerShape default_shape{spec.resolved_ffn_hidden(), spec.mlp, spec.resolved_kv_heads()};
  d.expert_parallel = o.ep;
  for (int l = 0, moe_index = 0; l < spec.layers; ++l)
    d.blocks.push_back(spec.moe_layer(l) ? moe_layer_block(c, l, moe_index++, d.expert_load) : layer_block(c, l, default_shape));
  d.blocks.push_back(head_block(c));
  return d;
}

std::string TransformerType::shape_text(const config::WorkloadSpec& workload) const {
  const auto& w = workload.as<TransformerSpec>();
  std::string text = fmt::format("{} layers, hidden {}, {} heads", w.layers, w.hidden, w.heads);
  if (w.mla()) {
    text += fmt::format(" (latent attention: q {}, kv {}, q.k {}+{}, v {})", w.q_lora_rank, w.kv_lora_rank,
                        w.qk_nope_head_dim, w.qk_rope_head_dim, w.v_head_dim);
  } else if (w.resolved_kv_heads() != w.heads) {
    text += fmt::format(" ({} KV)", w.resolved_kv_heads());
  }
  if (!w.mla() && w.head_dim > 0 && static_cast<long long>(w.head_dim) * w.heads != w.hidden) text += fmt::format(" of {}", w.head_dim);
  text += fmt::format(", {} MLP {}", mlp_name(w.mlp), w.resolved_ffn_hidden());
  if (!w.overrides.empty()) text += fmt::format(" ({} overrides)", w.overrides.size());
  if (w.experts > 0) {
    text += fmt::format(", {} experts top-{} of {}", w.experts, w.top_k, w.resolved_expert_ffn_hidden());
    if (w.shared_experts > 0) text += fmt::format(" + {} shared", w.shared_experts);
    if (w.first_dense_layers > 0) text += fmt::format(" after {} dense layers", w.first_dense_layers);
  }
  text += fmt::format(", {}, {} positions", norm_name(w.norm), position_name(w.position));
  if (!w.tie_embeddings) text += ", untied embeddings";
  if (!w.bias) text += ", no biases";
  if (!w.dropout) text += ", no dropout";
  text += fmt::format(", sequence {}, vocabulary {}", w.seq_length, w.vocab_size);
  return text;
}

}  // namespace clearfog::workload
