#include "workload/TransformerMla.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/Errors.hpp"
#include "workload/TransformerKernelParts.hpp"

namespace clearfog::workload {

using kernels::GemmShape;
using kernels::Kernel;

using namespace parts;  // NOLINT: the helpers are this file's vocabulary

namespace {

/// The layer's MLA sizes on one tensor rank: T tokens (the whole sequence: the attention input is
/// gathered under sequence parallelism), a heads of this rank.
struct MlaDims {
  long long T, b, s, h, a;
  long long q_lora, kv_lora, nope, rope, v;
  double e;
  [[nodiscard]] long long qk() const { return nope + rope; }
  [[nodiscard]] long long q_width() const { return a * qk(); }
  [[nodiscard]] long long kv_width() const { return a * (nope + v); }
};

MlaDims mla_dims(const TransformerModel& model, int layer) {
  const auto& w = model.spec();
  const Dims d = dims_of(model, layer);
  return {d.tokens(), d.b,         d.s,          d.h,          d.a, w.q_lora_rank, w.kv_lora_rank,
          w.qk_nope_head_dim, w.qk_rope_head_dim, w.v_head_dim, d.e};
}

/// FlashAttention over q.k of qk dimensions and values of v: priced as a head dimension of
/// (qk + v)/2, which gives the FLOPs (2s^2 qk + 2s^2 v per head) and the compulsory bytes (Q, K of
/// qk, V, O of v elements per row) exactly.
kernels::AttentionShape attention_shape(const MlaDims& m, bool backward, bool causal, AttentionKernel kernel) {
  return {m.b * m.a, m.s, (m.qk() + m.v) / 2, backward, causal, kernel};
}

/// Kernels every tensor rank runs in full on replicated weights: each counts 1/t of their model
/// FLOPs, so that the model's math is counted once over the tensor group (hardware FLOPs stay).
void replicated_over(std::vector<Kernel>& kernels, std::size_t from, long long t) {
  for (std::size_t i = from; i < kernels.size(); ++i) kernels[i].model_flops /= static_cast<double>(t);
}

}  // namespace

TransformerMla::TransformerMla(const TransformerModel& model, int layer) : model_(model), layer_(layer) {
  const auto& w = model.spec();
  if (!w.mla()) throw Error(fmt::format("TransformerMla: layer {} has no latent attention (kv_lora_rank 0)", layer));
}

std::vector<Kernel> TransformerMla::forward() const {
  const MlaDims m = mla_dims(model_, layer_);
  const Dims d = dims_of(model_, layer_);
  const auto& w = model_.spec();
  const DType t = model_.dtype();
  std::vector<Kernel> k;
  k.push_back(norm_forward("ln1", d.N(), d.e, w.norm, t));
  long long q_in = m.h;
  if (m.q_lora > 0) {
    const std::size_t from = k.size();
    push_linear(k, model_, "q_down", GemmShape{m.T, m.q_lora, m.h, 1}, true);
    replicated_over(k, from, d.t);
    k.push_back(norm_forward("q_norm", static_cast<double>(m.T * m.q_lora), m.e, NormKind::RmsNorm, t));
    q_in = m.q_lora;
  }
  push_linear(k, model_, "q_up", GemmShape{m.T, m.q_width(), q_in, 1}, true);
  const std::size_t kv_from = k.size();
  push_linear(k, model_, "kv_down", GemmShape{m.T, m.kv_lora + m.rope, m.h, 1}, true);
  replicated_over(k, kv_from, d.t);
  k.push_back(norm_forward("kv_norm", static_cast<double>(m.T * m.kv_lora), m.e, NormKind::RmsNorm, t));
  push_linear(k, model_, "kv_up", GemmShape{m.T, m.kv_width(), m.kv_lora, 1}, true);
  // Rotary on the queries' rope part and the shared rope key: read and write each.
  const double rotated = static_cast<double>(m.T * (m.a + 1) * m.rope);
  k.push_back(Kernel::make_memory_bound("rope", 2 * rotated * m.e, kRotaryFlops * rotated, t));
  if ((model_.attention() == config::Attention::Fused)) {
    k.push_back(Kernel::make_fused_attention("attention", attention_shape(m, false, model_.spec().causal, model_.fusions().attention_kernel), t));
  } else {
    const double A = d.A();
    k.push_back(Kernel::make_gemm("attn_scores", GemmShape{m.s, m.s, m.qk(), m.b * m.a}, t));
    k.push_back(Kernel::make_memory_bound("softmax", 2 * A * m.e, kSoftmaxFlops * A, t));
    if (w.dropout)
      k.push_back(Kernel::make_memory_bound("attn_dropout", A * (2 * m.e + kMaskBytes), kDropoutFlops * A, t));
    k.push_back(Kernel::make_gemm("attn_v", GemmShape{m.s, m.v, m.s, m.b * m.a}, t));
  }
  push_linear(k, model_, "proj", GemmShape{m.T, m.h, m.a * m.v, 1});
  return k;
}

std::vector<Kernel> TransformerMla::backward() const {
  const MlaDims m = mla_dims(model_, layer_);
  const Dims d = dims_of(model_, layer_);
  const auto& w = model_.spec();
  const DType t = model_.dtype();
  std::vector<Kernel> k;
  k.push_back(norm_backward("ln2", d.N(), d.e, w.norm, t, true));
  push_residual_backward(k, "1", d, w.dropout, t);
  push_linear_backward(k, model_, "proj", GemmShape{m.T, m.h, m.a * m.v, 1});
  if ((model_.attention() == config::Attention::Fused)) {
    k.push_back(Kernel::make_fused_attention("attention.bwd", attention_shape(m, true, model_.spec().causal, model_.fusions().attention_kernel), t));
  } else {
    const double A = d.A();
    k.push_back(Kernel::make_gemm("attn_v.dprobs", GemmShape{m.s, m.s, m.v, m.b * m.a}, t));
    k.push_back(Kernel::make_gemm("attn_v.dv", GemmShape{m.s, m.v, m.s, m.b * m.a}, t));
    if (w.dropout)
      k.push_back(Kernel::make_memory_bound("attn_dropout.bwd", A * (2 * m.e + kMaskBytes),
                                            kBackwardFlopsFactor * kDropoutFlops * A, t));
    k.push_back(Kernel::make_memory_bound("softmax.bwd", 3 * A * m.e, kBackwardFlopsFactor * kSoftmaxFlops * A, t));
    k.push_back(Kernel::make_gemm("attn_scores.dq", GemmShape{m.s, m.qk(), m.s, m.b * m.a}, t));
    k.push_back(Kernel::make_gemm("attn_scores.dk", GemmShape{m.s, m.qk(), m.s, m.b * m.a}, t));
  }
  const double rotated = static_cast<double>(m.T * (m.a + 1) * m.rope);
  k.push_back(Kernel::make_memory_bound("rope.bwd", 2 * rotated * m.e, kRotaryFlops * rotated, t));
  push_linear_backward(k, model_, "kv_up", GemmShape{m.T, m.kv_width(), m.kv_lora, 1});
  k.push_back(norm_backward("kv_norm", static_cast<double>(m.T * m.kv_lora), m.e, NormKind::RmsNorm, t, false));
  std::size_t from = k.size();
  push_linear_backward(k, model_, "kv_down", GemmShape{m.T, m.kv_lora + m.rope, m.h, 1});
  replicated_over(k, from, d.t);
  const long long q_in = m.q_lora > 0 ? m.q_lora : m.h;
  push_linear_backward(k, model_, "q_up", GemmShape{m.T, m.q_width(), q_in, 1});
  if (m.q_lora > 0) {
    k.push_back(norm_backward("q_norm", static_cast<double>(m.T * m.q_lora), m.e, NormKind::RmsNorm, t, false));
    from = k.size();
    push_linear_backward(k, model_, "q_down", GemmShape{m.T, m.q_lora, m.h, 1});
    replicated_over(k, from, d.t);
  }
  k.push_back(norm_backward("ln1", d.N(), d.e, w.norm, t, true));
  return k;
}

double TransformerMla::parameters() const {
  const auto& w = model_.spec();
  const double h = w.hidden, a = w.heads, ql = w.q_lora_rank, kl = w.kv_lora_rank;
  const double qk = w.qk_nope_head_dim + w.qk_rope_head_dim, v = w.v_head_dim;
  const double q = ql > 0 ? h * ql + ql + ql * a * qk : h * a * qk;
  const double kv = h * (kl + w.qk_rope_head_dim) + kl + kl * a * (w.qk_nope_head_dim + v);
  return q + kv + a * v * h;
}

std::vector<ParamTensor> TransformerMla::device_params(int t) const {
  const auto& w = model_.spec();
  const double h = w.hidden, a = w.heads, ql = w.q_lora_rank, kl = w.kv_lora_rank;
  const double qk = w.qk_nope_head_dim + w.qk_rope_head_dim, v = w.v_head_dim;
  const auto replicated = [](std::string name, double n) { return ParamTensor{std::move(name), n, n, {}, false}; };
  const auto sharded = [t](std::string name, double n) { return ParamTensor{std::move(name), n / t, n, {}, false}; };
  std::vector<ParamTensor> p;
  p.push_back(sharded("proj.weight", a * v * h));
  p.push_back(sharded("kv_up.weight", kl * a * (w.qk_nope_head_dim + v)));
  p.push_back(replicated("kv_norm", kl));
  p.push_back(replicated("kv_down.weight", h * (kl + w.qk_rope_head_dim)));
  if (ql > 0) {
    p.push_back(sharded("q_up.weight", ql * a * qk));
    p.push_back(replicated("q_norm", ql));
    p.push_back(replicated("q_down.weight", h * ql));
  } else {
    p.push_back(sharded("q_up.weight", h * a * qk));
  }
  return p;
}

double TransformerMla::saved_bytes() const {
  const MlaDims m = mla_dims(model_, layer_);
  const double ea = m.e;
  const double T = static_cast<double>(m.T);
  const double latents =
      2.0 * static_cast<double>(m.q_lora) + 2.0 * static_cast<double>(m.kv_lora) + static_cast<double>(m.rope);
  const double heads = static_cast<double>(m.a) * (2.0 * static_cast<double>(m.qk()) + 2.0 * static_cast<double>(m.v));
  return T * (latents + heads) * ea;
}

}  // namespace clearfog::workload
