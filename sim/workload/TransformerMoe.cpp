#include "workload/TransformerMoe.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "workload/TransformerKernelParts.hpp"

// Notation as in TransformerModel.cpp, plus E routed experts, k = top_k, f_e the expert MLP's
// inner size, T the router's tokens on this device; docs/moe.md.
namespace clearfog::workload {

using namespace parts;  // NOLINT: the helpers are this file's vocabulary

namespace {

constexpr double kExpertIndexBytes = 8;     // an int64 expert index per token copy (PyTorch topk)
constexpr double kProbBytes = 4;      // router logits and probabilities in fp32 (Megatron-Core)
constexpr double kCombineFlops = 2;   // weight x value, add, per element of a token copy

std::vector<GemmShape> groups_of(const std::vector<double>& tokens, long long n, long long k) {
  std::vector<GemmShape> g;
  for (const double m : tokens) g.push_back(GemmShape{std::llround(m), n, k, 1});
  return g;
}

}  // namespace

TransformerMoe::TransformerMoe(const TransformerModel& model, int layer) : model_(model), layer_(layer) {
  if (!model.spec().moe_layer(layer))
    throw Error(fmt::format("TransformerMoe: layer {} is not a MoE layer", layer));
}

double TransformerMoe::router_tokens() const {
  const Dims d = dims_of(model_, layer_);
  return static_cast<double>(d.tokens()) * d.seq_share;
}

std::vector<Kernel> TransformerMoe::router_forward() const {
  const Dims d = dims_of(model_, layer_);
  const auto H = static_cast<double>(d.h);
  const auto& w = model_.spec();
  const DType t = model_.dtype();
  const double T = router_tokens(), E = w.experts, k = w.top_k;
  std::vector<Kernel> out;
  out.push_back(residual_forward("1", d, w.dropout, t));
  out.push_back(norm_forward("ln2", d.N(), d.e, w.norm, t));
  out.push_back(Kernel::make_gemm("router", GemmShape{std::llround(T), w.experts, d.h, 1}, t));
  // softmax over E logits and top-k: read the logits, write probabilities, k weights and indices
  out.push_back(Kernel::make_memory_bound("topk", T * (2 * E * kProbBytes + k * (kProbBytes + kExpertIndexBytes)),
                                          kSoftmaxFlops * T * E, t));
  // gather each token k times in expert order
  out.push_back(Kernel::make_memory_bound("permute", T * (1 + k) * H * d.e, 0, t));
  return out;
}

std::vector<Kernel> TransformerMoe::router_backward() const {
  const Dims d = dims_of(model_, layer_);
  const auto H = static_cast<double>(d.h);
  const auto& w = model_.spec();
  const DType t = model_.dtype();
  const double T = router_tokens(), E = w.experts, k = w.top_k;
  std::vector<Kernel> out;
  // scatter-add the k copies' gradients back into token order
  out.push_back(Kernel::make_memory_bound("permute.bwd", T * (1 + k) * H * d.e, T * k * H, t));
  out.push_back(Kernel::make_memory_bound("topk.bwd", T * E * 3 * kProbBytes,
                                          kBackwardFlopsFactor * kSoftmaxFlops * T * E, t));
  push_weight_gemm_backward(out, "router", GemmShape{std::llround(T), w.experts, d.h, 1}, t);
  return out;
}

TransformerMoe::MlpShape TransformerMoe::mlp_shape(const std::vector<double>& tokens, double width) const {
  const Dims d = dims_of(model_, layer_);
  return MlpShape{d.h, static_cast<long long>(width) / d.t, gated(model_.spec().mlp) ? 2LL : 1LL,
                  std::accumulate(tokens.begin(), tokens.end(), 0.0), d.e};
}

std::vector<Kernel> TransformerMoe::mlp_forward(const std::string& name, const std::vector<double>& tokens,
                                                double width) const {
  const MlpShape m = mlp_shape(tokens, width);
  const DType t = model_.dtype(), g = model_.gemm_dtype();
  const bool cast = casts_gemm_inputs(model_);
  const double hidden = m.copies * static_cast<double>(m.f);
  std::vector<Kernel> out;
  if (cast) out.push_back(fp8_cast(name + ".fc1.cast", m.copies * static_cast<double>(m.h), kCastTransposeBytes, t));
  out.push_back(Kernel::make_grouped_gemm(name + ".fc1", groups_of(tokens, m.up * m.f, m.h), g));
  auto act = activation_forward(model_.spec().mlp, hidden, m.e, t);
  act.name = name + "." + act.name;
  out.push_back(std::move(act));
  if (cast) out.push_back(fp8_cast(name + ".fc2.cast", hidden, kCastTransposeBytes, t));
  out.push_back(Kernel::make_grouped_gemm(name + ".fc2", groups_of(tokens, m.h, m.f), g));
  return out;
}

std::vector<Kernel> TransformerMoe::mlp_backward(const std::string& name, const std::vector<double>& tokens,
                                                 double width) const {
  const MlpShape m = mlp_shape(tokens, width);
  const DType t = model_.dtype(), g = model_.gemm_dtype();
  const bool cast = casts_gemm_inputs(model_);
  // Y = X W per group: dX = dY W^T (m, k, n), dW = X^T dY (k, n, m)
  const auto dgrad = [&](const std::string& n, long long cols, long long inner) {
    std::vector<GemmShape> shapes;
    for (const double copies : tokens) shapes.push_back(GemmShape{std::llround(copies), inner, cols, 1});
    return Kernel::make_grouped_gemm(n + ".dgrad", std::move(shapes), g);
  };
  const auto wgrad = [&](const std::string& n, long long cols, long long inner) {
    std::vector<GemmShape> shapes;
    for (const double copies : tokens) shapes.push_back(GemmShape{inner, cols, std::llround(copies), 1});
    return kernels::weight_gradient(Kernel::make_grouped_gemm(n + ".wgrad", std::move(shapes), g));
  };
  std::vector<Kernel> out;
  if (cast) out.push_back(fp8_cast(name + ".fc2.cast.bwd", m.copies * static_cast<double>(m.h), kCastTransposeBytes, t));
  out.push_back(dgrad(name + ".fc2", m.h, m.f));
  out.push_back(wgrad(name + ".fc2", m.h, m.f));
  auto act = activation_backward(model_.spec().mlp, m.copies * static_cast<double>(m.f), m.e, t);
  act.name = name + "." + act.name;
  out.push_back(std::move(act));
  if (cast)
    out.push_back(fp8_cast(name + ".fc1.cast.bwd", m.copies * static_cast<double>(m.up * m.f), kCastTransposeBytes, t));
  out.push_back(dgrad(name + ".fc1", m.up * m.f, m.h));
  out.push_back(wgrad(name + ".fc1", m.up * m.f, m.h));
  return out;
}

std::vector<Kernel> TransformerMoe::experts_forward(const std::vector<double>& tokens) const {
  return mlp_forward("experts", tokens, model_.spec().resolved_expert_ffn_hidden());
}
std::vector<Kernel> TransformerMoe::experts_backward(const std::vector<double>& tokens) const {
  return mlp_backward("experts", tokens, model_.spec().resolved_expert_ffn_hidden());
}

std::vector<Kernel> TransformerMoe::shared_forward() const {
  const auto& w = model_.spec();
  if (w.shared_experts == 0) return {};
  const Dims d = dims_of(model_, layer_);
  return mlp_forward("shared", {static_cast<double>(d.tokens())},
                     static_cast<double>(w.shared_experts) * w.resolved_expert_ffn_hidden());
}
std::vector<Kernel> TransformerMoe::shared_backward() const {
  const auto& w = model_.spec();
  if (w.shared_experts == 0) return {};
  const Dims d = dims_of(model_, layer_);
  return mlp_backward("shared", {static_cast<double>(d.tokens())},
                      static_cast<double>(w.shared_experts) * w.resolved_expert_ffn_hidden());
}

std::vector<Kernel> TransformerMoe::combine_forward() const {
  const Dims d = dims_of(model_, layer_);
  const auto H = static_cast<double>(d.h);
  const auto& w = model_.spec();
  const DType t = model_.dtype();
  const double T = router_tokens(), k = w.top_k;
  std::vector<Kernel> out;
  // read k weighted copies (and the shared experts' output), write the token
  const double inputs = k + (w.shared_experts > 0 ? 1 : 0);
  out.push_back(Kernel::make_memory_bound("unpermute", T * ((inputs + 1) * H * d.e + k * kProbBytes),
                                          kCombineFlops * T * inputs * H, t));
  out.push_back(residual_forward("2", d, w.dropout, t));
  return out;
}

std::vector<Kernel> TransformerMoe::combine_backward() const {
  const Dims d = dims_of(model_, layer_);
  const auto H = static_cast<double>(d.h);
  const auto& w = model_.spec();
  const DType t = model_.dtype();
  const double T = router_tokens(), k = w.top_k;
  std::vector<Kernel> out;
  push_residual_backward(out, "2", d, w.dropout, t);
  // read dy and the k expert outputs (for the weights' gradient), write k copy gradients and k
  // weight gradients
  out.push_back(Kernel::make_memory_bound("unpermute.bwd", T * ((1 + 2 * k) * H * d.e + k * kProbBytes),
                                          kBackwardFlopsFactor * kCombineFlops * T * k * H, t));
  return out;
}

double TransformerMoe::mlp_parameters(double width) const {
  const auto& w = model_.spec();
  const double h = w.hidden, up = gated(w.mlp) ? 2 : 1, bias = w.bias ? 1 : 0;
  return h * up * width + bias * up * width + width * h + bias * h;
}

double TransformerMoe::expert_parameters() const { return mlp_parameters(model_.spec().resolved_expert_ffn_hidden()); }

double TransformerMoe::shared_parameters() const {
  const auto& w = model_.spec();
  return w.shared_experts > 0 ? mlp_parameters(static_cast<double>(w.shared_experts) * w.resolved_expert_ffn_hidden())
                              : 0.0;
}

double TransformerMoe::parameters() const {
  const auto& w = model_.spec();
  return static_cast<double>(w.hidden) * w.experts + w.experts * expert_parameters() + shared_parameters();
}

double TransformerMoe::activation_bytes(double expert_tokens, config::Recompute recompute) const {
  if (recompute == config::Recompute::Full) return 0;
  const Dims d = dims_of(model_, layer_);
  const auto H = static_cast<double>(d.h);
  const auto& w = model_.spec();
  const double ea = d.e;
  const double T = router_tokens(), k = w.top_k, up = gated(w.mlp) ? 2 : 1;
  const double f = static_cast<double>(w.resolved_expert_ffn_hidden()) / static_cast<double>(d.t);
  // router: its normed input and the probabilities; combine: the k copies' outputs and weights
  const double router = T * H * ea + T * w.experts * kProbBytes + T * k * (kProbBytes + kExpertIndexBytes);
  const double combine = T * k * H * ea;
  // each expert copy: fc1's input, the activation's input(s), fc2's input (GEMM inputs in fp8 with fp8 training)
  const double eg = saved_gemm_input_bytes(model_);
  const double experts = expert_tokens * ((H + f) * eg + up * f * ea);
  const double shared_f = static_cast<double>(w.shared_experts) * f;
  const double shared =
      w.shared_experts > 0 ? static_cast<double>(d.tokens()) * ((H + shared_f) * eg + up * shared_f * ea) : 0.0;
  return router + combine + experts + shared;
}

}  // namespace clearfog::workload
