#include "workload/TransformerModel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/Errors.hpp"
#include "workload/EagerPointwise.hpp"
#include "workload/TransformerKernelParts.hpp"
#include "workload/TransformerMla.hpp"
#include "workload/TransformerMoe.hpp"

// Kernel list, FLOP and byte counts: docs/compute-model.md and docs/workloads.md. Notation: b
// micro-batch, s sequence, h hidden, a query heads, k KV heads, d head dimension, f MLP hidden, V
// vocabulary (a, k, f and V per tensor-parallel rank), e = dtype_bytes(dtype); N = b*s*h elements of
// the residual stream (times 1/t where sequence parallelism shards it), A = b*a*s^2 elements of the
// attention matrix.
namespace clearfog::workload {

using kernels::GemmShape;
using kernels::Kernel;

using namespace parts;  // NOLINT: the helpers are this file's vocabulary


LayerShape TransformerSpec::layer(int l) const {
  LayerShape shape{resolved_ffn_hidden(), mlp, resolved_kv_heads()};
  for (const auto& o : overrides) {
    if (l < o.first || l >= o.first + o.count) continue;
    if (o.ffn_hidden) shape.ffn_hidden = *o.ffn_hidden;
    if (o.mlp) shape.mlp = *o.mlp;
    if (o.kv_heads) shape.kv_heads = *o.kv_heads;
  }
  return shape;
}

TransformerModel::TransformerModel(const TransformerSpec& spec, int micro_batch, DType dtype, TensorSharding sharding,
                                   config::Attention attention, config::KernelFusions fusions)
    : spec_(spec),
      micro_batch_(micro_batch),
      // FP8 training (Transformer Engine, torchao float8) runs only the weight GEMMs in fp8.
      dtype_(storage_dtype(dtype)),
      gemm_dtype_(dtype),
      sharding_(sharding),
      attention_(attention),
      fusions_(fusions) {
  require_positive(spec, "layers", spec.layers);
  require_positive(spec, "hidden", spec.hidden);
  require_positive(spec, "heads", spec.heads);
  require_positive(spec, "seq_length", spec.seq_length);
  require_positive(spec, "vocab_size", spec.vocab_size);
  require_positive(spec, "micro_batch", micro_batch);
  if (spec.ffn_hidden < 0 || spec.kv_heads < 0 || spec.head_dim < 0)
    throw Error("TransformerModel: ffn_hidden, kv_heads and head_dim must be >= 0 (0: the default)");
  if (spec.head_dim == 0 && spec.hidden % spec.heads != 0)
    throw Error(fmt::format("TransformerModel: hidden ({}) must be divisible by heads ({})", spec.hidden, spec.heads));
  const int t = sharding.tp;
  if (t < 1) throw Error(fmt::format("TransformerModel: tensor-parallel degree must be >= 1, got {}", t));
  if (spec.heads % t != 0)
    throw Error(fmt::format("TransformerModel: tensor-parallel degree {} must divide heads ({})", t, spec.heads));
  for (int l = 0; l < spec.layers; ++l) {
    const LayerShape shape = spec.layer(l);
    if (shape.kv_heads <= 0 || spec.heads % shape.kv_heads != 0 || shape.kv_heads % t != 0)
      throw Error(fmt::format("TransformerModel: layer {}: kv_heads {} must divide heads ({}) and be divisible by "
                              "the tensor-parallel degree {}",
                              l, shape.kv_heads, spec.heads, t));
    if (shape.ffn_hidden <= 0 || shape.ffn_hidden % t != 0)
      throw Error(fmt::format("TransformerModel: layer {}: ffn_hidden {} must be > 0 and divisible by the "
                              "tensor-parallel degree {}",
                              l, shape.ffn_hidden, t));
  }
  if (sharding.sequence_parallel && spec.seq_length % t != 0)
    throw Error(fmt::format("TransformerModel: sequence parallelism needs seq_length ({}) divisible by tp {}",
                            spec.seq_length, t));
}

std::vector<Kernel> TransformerModel::attention_forward(int layer) const {
  if (spec_.mla()) return TransformerMla(*this, layer).forward();
  const Dims d = dims_of(*this, layer);
  const DType t = dtype_;
  const auto& w = spec_;
  std::vector<Kernel> k;
  push_norm_forward(k, "ln1", d.N());
  push_input_projections(k, input_projections(layer, Branch::Attention), true);
  if (w.position == PositionKind::Rotary) push_rotary(k, "rope", d, true);
  if (fused_attention()) {
    // scores, softmax, dropout (mask regenerated from the RNG state) and P.V in one kernel
    k.push_back(Kernel::make_fused_attention("attention", kernels::AttentionShape{d.b * d.a, d.s, d.d, false, spec_.causal, fusions_.attention_kernel}, t));
  } else {
    k.push_back(Kernel::make_gemm("attn_scores", GemmShape{d.s, d.s, d.d, d.b * d.a}, t));
    // (ALiBi bias +) scale + causal mask + softmax: read the scores, write the probabilities
    const double softmax_flops = kSoftmaxFlops + (w.position == PositionKind::Alibi ? kAlibiFlops : 0);
    // Unfused (Megatron without --masked-softmax-fusion): the mask is filled in by a kernel of its
    // own that reads and writes the scores once more.
    if (!fusions_.softmax_mask) k.push_back(Kernel::make_memory_bound("attn_mask", 2 * d.A() * d.e, d.A(), t));
    k.push_back(Kernel::make_memory_bound("softmax", 2 * d.A() * d.e, softmax_flops * d.A(), t));
    // read the probabilities, write the dropped ones and the mask
    if (w.dropout)
      k.push_back(
          Kernel::make_memory_bound("attn_dropout", d.A() * (2 * d.e + kMaskBytes), kDropoutFlops * d.A(), t));
    k.push_back(Kernel::make_gemm("attn_v", GemmShape{d.s, d.d, d.s, d.b * d.a}, t));
  }
  push_linear(k, *this, "proj", GemmShape{d.tokens(), d.h, d.a * d.d, 1});
  return k;
}

std::vector<Kernel> TransformerModel::mlp_forward(int layer) const {
  const Dims d = dims_of(*this, layer);
  const DType t = dtype_;
  const LayerShape shape = spec_.layer(layer);
  std::vector<Kernel> k;
  k.push_back(residual_forward("1", d, spec_.dropout, t));
  push_norm_forward(k, "ln2", d.N());
  push_input_projections(k, input_projections(layer, Branch::Mlp), true);
  // Unfused bias + GeLU (Megatron without --bias-gelu-fusion): fc1 skips its bias, a kernel adds it
  // (read and write the MLP hidden), then the activation runs.
  if (!fusions_.bias_gelu && spec_.bias)
    k.push_back(Kernel::make_memory_bound("fc1_bias", 2 * d.F() * d.e, kAddFlops * d.F(), t));
  push_activation(k, shape.mlp, d, true);
  push_linear(k, *this, "fc2", GemmShape{d.tokens(), d.h, d.f, 1});
  k.push_back(residual_forward("2", d, spec_.dropout, t));
  return k;
}

std::vector<Kernel> TransformerModel::mlp_backward(int layer) const {
  const Dims d = dims_of(*this, layer);
  const DType t = dtype_;
  const LayerShape shape = spec_.layer(layer);
  std::vector<Kernel> k;
  push_residual_backward(k, "2", d, spec_.dropout, t);
  push_linear_backward(k, *this, "fc2", GemmShape{d.tokens(), d.h, d.f, 1});
  push_activation(k, shape.mlp, d, false);
  // Unfused: the bias gradient is a reduction of the MLP hidden's gradient over the tokens.
  if (!fusions_.bias_gelu && spec_.bias)
    k.push_back(Kernel::make_memory_bound("fc1_bias.bwd", d.F() * d.e, kAddFlops * d.F(), t));
  push_input_projections(k, input_projections(layer, Branch::Mlp), false);
  return k;
}

std::vector<Kernel> TransformerModel::attention_backward(int layer) const {
  if (spec_.mla()) return TransformerMla(*this, layer).backward();
  const Dims d = dims_of(*this, layer);
  const DType t = dtype_;
  std::vector<Kernel> k;
  push_norm_backward(k, "ln2", d.N(), true);
  push_residual_backward(k, "1", d, spec_.dropout, t);
  push_linear_backward(k, *this, "proj", GemmShape{d.tokens(), d.h, d.a * d.d, 1});
  if (fused_attention()) {
    // recomputes S and P from Q, K and the saved logsumexp, then dV, dP, dS, dQ, dK in one kernel
    k.push_back(Kernel::make_fused_attention("attention.bwd", kernels::AttentionShape{d.b * d.a, d.s, d.d, true, spec_.causal, fusions_.attention_kernel}, t));
  } else {
    // O = P . V per head: dP = dO . V^T (s, s, d) and dV = P^T . dO (s, d, s)
    k.push_back(Kernel::make_gemm("attn_v.dprobs", GemmShape{d.s, d.s, d.d, d.b * d.a}, t));
    k.push_back(Kernel::make_gemm("attn_v.dv", GemmShape{d.s, d.d, d.s, d.b * d.a}, t));
    // read dy and the mask, write dx
    if (spec_.dropout)
      k.push_back(Kernel::make_memory_bound("attn_dropout.bwd", d.A() * (2 * d.e + kMaskBytes),
                                            kBackwardFlopsFactor * kDropoutFlops * d.A(), t));
    // read the saved probabilities and dy, write dx
    k.push_back(Kernel::make_memory_bound("softmax.bwd", 3 * d.A() * d.e,
                                          kBackwardFlopsFactor * kSoftmaxFlops * d.A(), t));
    // the unfused mask's backward zeroes the masked gradients: read and write them once more
    if (!fusions_.softmax_mask) k.push_back(Kernel::make_memory_bound("attn_mask.bwd", 2 * d.A() * d.e, d.A(), t));
    // S = Q . K^T per head: dQ = dS . K (s, d, s) and dK = dS^T . Q (s, d, s)
    k.push_back(Kernel::make_gemm("attn_scores.dq", GemmShape{d.s, d.d, d.s, d.b * d.a}, t));
    k.push_back(Kernel::make_gemm("attn_scores.dk", GemmShape{d.s, d.d, d.s, d.b * d.a}, t));
  }
  if (spec_.position == PositionKind::Rotary) push_rotary(k, "rope.bwd", d, false);
  push_input_projections(k, input_projections(layer, Branch::Attention), false);
  push_norm_backward(k, "ln1", d.N(), true);
  return k;
}

std::vector<Kernel> TransformerModel::layer_forward(int layer) const {
  auto k = attention_forward(layer);
  auto mlp = mlp_forward(layer);
  k.insert(k.end(), mlp.begin(), mlp.end());
  return k;
}

std::vector<Kernel> TransformerModel::layer_backward(int layer) const {
  auto k = mlp_backward(layer);
  auto attn = attention_backward(layer);
  k.insert(k.end(), attn.begin(), attn.end());
  return k;
}

std::vector<Kernel> TransformerModel::attention_core_forward(int layer) const {
  std::vector<Kernel> core;
  if (fused_attention()) return core;
  for (auto& k : attention_forward(layer))
    if (k.name == "attn_scores" || k.name == "softmax" || k.name == "attn_dropout" || k.name == "attn_v")
      core.push_back(std::move(k));
  return core;
}

OpCheckpointSplit TransformerModel::op_checkpoint(int layer) const {
  const Dims d = dims_of(*this, layer);
  std::set<std::string> batched;  // the unfused attention's products are aten.bmm
  for (const auto& k : attention_core_forward(layer)) batched.insert(k.name);
  // A MoE layer's experts are refused under this policy (TransformerType::check_scenario).
  auto split = split_op_checkpoint(spec_.moe_layer(layer) ? attention_forward(layer) : layer_forward(layer), d.e,
                                   batched);
  constexpr double kReduceScatters = 2;  // after the attention projection and after fc2
  if (sharding_.tp > 1 && sharding_.sequence_parallel) split.saved_B += kReduceScatters * d.N() * d.e;
  return split;
}

std::vector<Kernel> TransformerModel::embedding_forward() const {
  const Dims d = dims_of(*this, 0);
  const bool learned = spec_.position == PositionKind::Learned;
  // gather b*s token rows (the whole sequence: vocabulary-parallel ranks each write the full
  // output, zeros outside their shard), read s position rows shared by the micro-batch, write the sum
  const double bytes = (2 * d.full() + (learned ? static_cast<double>(d.s * d.h) : 0.0)) * d.e;
  return {Kernel::make_memory_bound("embedding", bytes, learned ? kEmbeddingFlops * d.full() : 0.0, dtype_)};
}

std::vector<Kernel> TransformerModel::embedding_backward() const {
  const Dims d = dims_of(*this, 0);
  const bool learned = spec_.position == PositionKind::Learned;
  // read dy; scatter-add into the token-embedding gradient (read + write b*s rows); sum over the
  // micro-batch into the position-embedding gradient (write s rows)
  const double bytes = (3 * d.full() + (learned ? static_cast<double>(d.s * d.h) : 0.0)) * d.e;
  return {Kernel::make_memory_bound("embedding.bwd", bytes, kBackwardFlopsFactor * kEmbeddingFlops * d.full(),
                                    dtype_)};
}

std::vector<Kernel> TransformerModel::embedding_dropout_forward() const {
  if (!spec_.dropout) return {};
  const Dims d = dims_of(*this, 0);
  return {Kernel::make_memory_bound("embedding_dropout", d.N() * (2 * d.e + kMaskBytes), kDropoutFlops * d.N(),
                                    dtype_)};
}

std::vector<Kernel> TransformerModel::embedding_dropout_backward() const {
  if (!spec_.dropout) return {};
  const Dims d = dims_of(*this, 0);
  return {Kernel::make_memory_bound("embedding_dropout.bwd", d.N() * (2 * d.e + kMaskBytes),
                                    kBackwardFlopsFactor * kDropoutFlops * d.N(), dtype_)};
}

std::vector<Kernel> TransformerModel::final_norm_forward() const {
  const Dims d = dims_of(*this, 0);
  std::vector<Kernel> k;
  push_norm_forward(k, "final_ln", d.N());
  return k;
}

std::vector<Kernel> TransformerModel::logits_forward() const {
  const Dims d = dims_of(*this, 0);
  const DType t = dtype_;
  // Megatron's vocab-parallel cross-entropy on the fp32 logits, pass by pass (priced at the
  // training dtype's peak so that only that dtype needs one; its FLOPs never decide the time).
  return {Kernel::make_gemm("logits", GemmShape{d.tokens(), d.V, d.h, 1}, t),
          Kernel::make_memory_bound("cross_entropy",
                                    d.L() * (fusions_.cross_entropy ? fused_cross_entropy_forward_bytes_per_logit(d.e)
                                                                     : cross_entropy_forward_bytes_per_logit(d.e)),
                                    kCrossEntropyFlops * d.L(), t)};
}

std::vector<Kernel> TransformerModel::logits_backward() const {
  const Dims d = dims_of(*this, 0);
  const DType t = dtype_;
  std::vector<Kernel> k;
  const double bwd_bytes = fusions_.cross_entropy ? fused_cross_entropy_backward_bytes_per_logit(d.e)
                                                  : cross_entropy_backward_bytes_per_logit(d.e);
  k.push_back(Kernel::make_memory_bound("cross_entropy.bwd", d.L() * bwd_bytes,
                                        kCrossEntropyBwdFlops * d.L(), t));
  push_weight_gemm_backward(k, "logits", GemmShape{d.tokens(), d.V, d.h, 1}, t);
  return k;
}

std::vector<Kernel> TransformerModel::final_norm_backward() const {
  const Dims d = dims_of(*this, 0);
  std::vector<Kernel> k;
  push_norm_backward(k, "final_ln", d.N(), false);
  return k;
}

std::vector<Kernel> TransformerModel::head_forward() const {
  auto k = final_norm_forward();
  auto logits = logits_forward();
  k.insert(k.end(), logits.begin(), logits.end());
  return k;
}

std::vector<Kernel> TransformerModel::head_backward() const {
  auto k = logits_backward();
  auto norm = final_norm_backward();
  k.insert(k.end(), norm.begin(), norm.end());
  return k;
}

double cross_entropy_forward_bytes_per_logit(double e) {
  // Megatron-LM (mpu/cross_entropy.py, called on output.float()): cast the 16-bit logits to fp32
  // (e + 4; nothing when they already are fp32), row max (4), subtract it in place (8), exp in
  // place (8), row sum (4), divide by it in place (8): the fp32 softmax stays for the backward.
  const double cast = e == kFp32Bytes ? 0 : e + kFp32Bytes;
  return cast + 4 + 8 + 8 + 4 + 8;
}

double cross_entropy_backward_bytes_per_logit(double e) {
  // The saved softmax minus the one-hot target (one element per row), times the loss gradient in
  // place (8), then the cast's backward to the logits' dtype (4 + e; nothing in fp32).
  return 8 + (e == kFp32Bytes ? 0 : kFp32Bytes + e);
}

double fused_cross_entropy_forward_bytes_per_logit(double e) {
  // One kernel in the logits' dtype (a compiler's fusion, or a fused cross-entropy kernel): read the
  // logits once; only per-row statistics are written.
  return e;
}

double fused_cross_entropy_backward_bytes_per_logit(double e) {
  // Read the logits and the row statistics, write the gradient.
  return 2 * e;
}

bool TransformerModel::eager_pointwise() const { return !fusions_.pointwise; }

void TransformerModel::push_rotary(std::vector<Kernel>& out, const std::string& name, const Dims& d, bool forward) const {
  if (!eager_pointwise()) {
    out.push_back(parts::rotary(name, d, dtype_));
    return;
  }
  const auto ops = forward ? eager_rotary_forward(d.e) : eager_rotary_backward(d.e);
  for (auto& k : eager_kernels(name, ops, d.Q() + d.KV(), parts::kRotaryFlops, dtype_)) out.push_back(std::move(k));
}

void TransformerModel::push_activation(std::vector<Kernel>& out, MlpKind mlp, const Dims& d, bool forward) const {
  if (!eager_pointwise() || mlp != MlpKind::SwiGlu) {
    out.push_back(forward ? parts::activation_forward(mlp, d, dtype_) : parts::activation_backward(mlp, d, dtype_));
    return;
  }
  const auto ops = forward ? eager_swiglu_forward(d.e) : eager_swiglu_backward(d.e);
  const double flops = (forward ? 1 : parts::kBackwardFlopsFactor) * (parts::kSiluFlops + parts::kGateFlops);
  for (auto& k : eager_kernels(forward ? "swiglu" : "swiglu.bwd", ops, d.F(), flops, dtype_)) out.push_back(std::move(k));
}

void TransformerModel::push_norm_forward(std::vector<Kernel>& out, const std::string& name, double elements) const {
  const double e = dtype_bytes(dtype_);
  if (eager_pointwise() && spec_.norm == NormKind::RmsNorm) {
    for (auto& k : eager_kernels(name, eager_rms_norm_forward(e), elements, parts::kRmsNormFlops, dtype_))
      out.push_back(std::move(k));
    return;
  }
  // Unfused (PyTorch's reference layernorm as separate ops): a pass that reads x for the row mean
  // and variance before the normalizing kernel.
  if (!fusions_.layernorm) out.push_back(Kernel::make_memory_bound(name + ".stats", elements * e, 2 * elements, dtype_));
  out.push_back(norm_forward(name, elements, e, spec_.norm, dtype_));
}

void TransformerModel::push_norm_backward(std::vector<Kernel>& out, const std::string& name, double elements,
                                          bool accumulate_residual) const {
  const double e = dtype_bytes(dtype_);
  if (eager_pointwise() && spec_.norm == NormKind::RmsNorm) {
    const double flops = parts::kBackwardFlopsFactor * parts::kRmsNormFlops;
    for (auto& k : eager_kernels(name + ".bwd", eager_rms_norm_backward(e, accumulate_residual), elements, flops, dtype_))
      out.push_back(std::move(k));
    return;
  }
  // Unfused: the two row reductions of dy and dy*x_hat read dy and x in a pass of their own.
  if (!fusions_.layernorm)
    out.push_back(Kernel::make_memory_bound(name + ".stats.bwd", 2 * elements * e, 3 * elements, dtype_));
  out.push_back(norm_backward(name, elements, e, spec_.norm, dtype_, accumulate_residual));
}

double TransformerModel::parameters_per_layer(int layer) const {
  const auto& w = spec_;
  const LayerShape shape = w.layer(layer);
  const double h = w.hidden, a = w.heads, k = shape.kv_heads, d = w.resolved_head_dim(), f = shape.ffn_hidden;
  const double bias = w.bias ? 1 : 0;
  const double qkv = w.mla() ? TransformerMla(*this, layer).parameters() : h * (a + 2 * k) * d + bias * (a + 2 * k) * d;
  const double proj = w.mla() ? 0.0 : a * d * h + bias * h;
  const double up = gated(shape.mlp) ? 2 : 1;
  const double norm = w.norm == NormKind::LayerNorm ? h * (1 + bias) : h;  // scale (+ shift)
  if (w.moe_layer(layer)) return qkv + proj + 2 * norm + TransformerMoe(*this, layer).parameters();
  const double fc1 = h * up * f + bias * up * f;
  const double fc2 = f * h + bias * h;
  return qkv + proj + fc1 + fc2 + 2 * norm;  // GPT (f = 4h, a*d = h): 12h^2 + 13h
}

double TransformerModel::embedding_parameters() const {
  const double position = spec_.position == PositionKind::Learned ? spec_.seq_length : 0;
  return (static_cast<double>(spec_.vocab_size) + position) * static_cast<double>(spec_.hidden);
}

double TransformerModel::head_parameters() const {
  const double h = spec_.hidden;
  const double norm = spec_.norm == NormKind::LayerNorm ? h * (spec_.bias ? 2 : 1) : h;
  return norm + (spec_.tie_embeddings ? 0.0 : static_cast<double>(spec_.vocab_size) * h);
}

double TransformerModel::total_parameters() const {
  double layers = 0;
  for (int l = 0; l < spec_.layers; ++l) layers += parameters_per_layer(l);
  return layers + embedding_parameters() + head_parameters();
}

double TransformerModel::layer_activation_bytes(int layer, config::Recompute recompute) const {
  const Dims d = dims_of(*this, layer);
  const double ea = d.e;
  const double eg = saved_gemm_input_bytes(*this);
  const LayerShape shape = spec_.layer(layer);
  // Korthikanti et al. 2022, Table 2, term by term: what each kernel keeps for its backward.
  const double residual = d.N() * ea;  // a norm's input (the layer input, the first residual sum)
  const double masks = spec_.dropout ? 2 * d.N() * kMaskBytes : 0.0;
  // The projection's input is the attention output, which the fused kernel's backward also reads.
  const double proj_input = eg == ea ? ea : (fused_attention() ? ea + eg : eg);
  const double attention = spec_.mla() ? TransformerMla(*this, layer).saved_bytes()
                                       : (d.Q() + d.KV()) * ea  // Q and K for the scores
                                             + d.KV() * ea      // V for attn_v
                                             + d.Q() * proj_input;
  const double mlp = d.F() * (gated(shape.mlp) ? 2 : 1) * ea  // the activation's input(s)
                     + d.F() * eg;                            // fc2's input
  // Two norms' inputs, qkv's normed input, and (dense layers) fc1's. A MoE layer's router input
  // and experts are TransformerMoe::activation_bytes.
  const double rest = spec_.moe_layer(layer) ? 2 * residual + d.N() * eg + masks + attention
                                             : 2 * residual + 2 * d.N() * eg + masks + attention + mlp;
  // The fused kernel's fp32 logsumexp per query row of this rank's heads; it is never rescaled.
  const double logsumexp = fused_attention() ? kFp32Bytes * static_cast<double>(d.b * d.a * d.s) : 0.0;
  // softmax output, dropout mask and dropout output (the input of P.V); without dropout P.V reads
  // the softmax output.
  const double scores = fused_attention() ? 0.0 : d.A() * (spec_.dropout ? 2 * ea + kMaskBytes : ea);
  switch (recompute) {
    case config::Recompute::Full: return residual;  // the layer input only
    case config::Recompute::Selective: return rest + logsumexp;
    case config::Recompute::Op: return residual + op_checkpoint(layer).saved_B;
    case config::Recompute::None: break;
  }
  return rest + logsumexp + scores;
}

double TransformerModel::embedding_activation_bytes() const {
  const Dims d = dims_of(*this, 0);
  return spec_.dropout ? d.N() * kMaskBytes : 0.0;
}

double TransformerModel::loss_transient_bytes() const {
  return fusions_.cross_entropy ? 0.0 : 2 * kFp32Bytes * dims_of(*this, 0).L();
}

double TransformerModel::head_activation_bytes() const {
  const Dims d = dims_of(*this, 0);
  const double ea = d.e;
  // the final norm's input, the logits GEMM's input, the fp32 softmax for the cross-entropy backward
  return d.N() * ea + d.full() * ea + kFp32Bytes * d.L();
}

}  // namespace clearfog::workload
