#include "workload/TransformerModel.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/Errors.hpp"

// Kernel list, FLOP and byte counts: docs/compute-model.md. Notation: b micro-batch, s sequence,
// h hidden, a heads, f ffn hidden, V vocabulary, e = dtype_bytes(dtype); N = b*s*h elements of the
// residual stream, A = b*a*s^2 elements of the attention matrix.
namespace clearfog::workload {

using kernels::GemmShape;
using kernels::Kernel;

namespace {

// Per-element FLOPs of the memory-bound forward ops. They never decide a roofline time (these ops
// do < 3 FLOP/B, ~50x below an A100's ridge point) but keep the FLOP totals honest.
constexpr double kLayerNormFlops = 8;        // mean 1, variance 3, normalize 2, scale+shift 2
constexpr double kSoftmaxFlops = 7;          // scale, mask, max, subtract, exp, sum, divide
constexpr double kDropoutFlops = 2;          // keep/drop select, multiply by 1/(1-p)
constexpr double kDropoutAddFlops = 3;       // dropout 2 + residual add 1
constexpr double kGeluFlops = 9;             // tanh form: x^3 2, *0.044715 1, +x 1, *sqrt(2/pi) 1,
                                             // tanh 1, +1 1, *x 1, *0.5 1
constexpr double kCrossEntropyFlops = 4;     // max, subtract, exp, sum (per-row log ignored)
constexpr double kCrossEntropyBwdFlops = 2;  // softmax - one_hot, scale by the loss gradient
constexpr double kEmbeddingFlops = 1;        // token row + position row
// Backward memory-bound ops: twice the forward's per-element FLOPs (derivative plus the reduction
// or accumulation each of them needs). Their bytes are counted op by op below.
constexpr double kBackwardFlopsFactor = 2;

constexpr double kMaskBytes = 1;  // dropout masks are stored as one byte per element (PyTorch bool)
constexpr double kFp32Bytes = 4;  // the cross-entropy's softmax is computed and stored in fp32

constexpr long long kDefaultFfnMultiple = 4;

config::WorkloadSpec checked(config::WorkloadSpec spec, int micro_batch) {
  const auto positive = [&](const char* key, long long value) {
    if (value <= 0)
      throw Error(fmt::format("TransformerModel: workload '{}': {} must be > 0, got {}", spec.name, key, value));
  };
  positive("layers", spec.layers);
  positive("hidden", spec.hidden);
  positive("heads", spec.heads);
  positive("seq_length", spec.seq_length);
  positive("vocab_size", spec.vocab_size);
  positive("micro_batch", micro_batch);
  if (spec.ffn_hidden < 0)
    throw Error(fmt::format("TransformerModel: workload '{}': ffn_hidden must be >= 0 (0 = 4 * hidden), got {}",
                            spec.name, spec.ffn_hidden));
  if (spec.hidden % spec.heads != 0)
    throw Error(fmt::format("TransformerModel: workload '{}': hidden ({}) must be divisible by heads ({})",
                            spec.name, spec.hidden, spec.heads));
  if (spec.ffn_hidden == 0) spec.ffn_hidden = static_cast<int>(kDefaultFfnMultiple * spec.hidden);
  return spec;
}

// Integer dimensions for GEMM shapes, doubles for byte and FLOP formulas.
struct Dims {
  long long b, s, h, a, f, V;  // a, f and V are per tensor-parallel rank (divided by t)
  double e;
  long long t = 1;             // tensor-parallel degree
  double ln_share = 1;         // share of the sequence a layernorm/dropout works on (1/t with SP)
  [[nodiscard]] long long tokens() const { return b * s; }
  [[nodiscard]] long long head_dim() const { return h / (a * t); }
  [[nodiscard]] double N() const { return static_cast<double>(b * s * h) * ln_share; }  // residual stream
  [[nodiscard]] double A() const { return static_cast<double>(b * a) * static_cast<double>(s * s); }
  [[nodiscard]] double F() const { return static_cast<double>(b * s * f); }    // MLP hidden
  [[nodiscard]] double L() const { return static_cast<double>(b * s * V); }    // logits
};

Dims dims_of(const TransformerModel& model) {
  const auto& w = model.spec();
  const long long t = model.sharding().tp;
  // The vocabulary is padded to a multiple of t (Megatron pads to 128*t); rounding up is enough here.
  return Dims{model.micro_batch(),
              w.seq_length,
              w.hidden,
              w.heads / t,
              w.ffn_hidden / t,
              (w.vocab_size + t - 1) / t,
              dtype_bytes(model.dtype()),
              t,
              model.sharding().sequence_parallel ? 1.0 / static_cast<double>(t) : 1.0};
}

// The heads of this rank, all attended in full.
kernels::AttentionShape attention_shape(const Dims& d, bool backward) {
  return kernels::AttentionShape{d.b * d.a, d.s, d.head_dim(), backward};
}

// Y[m x n] = X[m x k] . W[k x n] gives dX = dY . W^T (m, k, n) and dW = X^T . dY (k, n, m).
void push_weight_gemm_backward(std::vector<Kernel>& out, const std::string& name, GemmShape fwd, DType dtype) {
  out.push_back(Kernel::make_gemm(name + ".dgrad", GemmShape{fwd.m, fwd.k, fwd.n, fwd.batch}, dtype));
  out.push_back(Kernel::make_gemm(name + ".wgrad", GemmShape{fwd.k, fwd.n, fwd.m, fwd.batch}, dtype));
}

// Layernorm forward reads x and writes y; backward reads dy and x and writes dx. With
// `accumulate_residual` (the layernorms inside a layer) the backward also reads the gradient that
// reached the residual stream through the skip connection and writes the sum.
Kernel layernorm_forward(const std::string& name, const Dims& d, DType dtype) {
  return Kernel::make_memory_bound(name, 2 * d.N() * d.e, kLayerNormFlops * d.N(), dtype);
}
Kernel layernorm_backward(const std::string& name, const Dims& d, DType dtype, bool accumulate_residual) {
  const double tensors = accumulate_residual ? 4 : 3;
  return Kernel::make_memory_bound(name + ".bwd", tensors * d.N() * d.e,
                                   kBackwardFlopsFactor * kLayerNormFlops * d.N(), dtype);
}

// Dropout + residual add forward reads the branch output and the residual, writes the sum and the
// mask. Backward reads dy and the mask and writes the branch gradient (the residual gradient is dy
// itself and is summed in by the layernorm backward below it).
Kernel dropout_add_forward(const std::string& name, const Dims& d, DType dtype) {
  return Kernel::make_memory_bound(name, d.N() * (3 * d.e + kMaskBytes), kDropoutAddFlops * d.N(), dtype);
}
Kernel dropout_add_backward(const std::string& name, const Dims& d, DType dtype) {
  return Kernel::make_memory_bound(name + ".bwd", d.N() * (2 * d.e + kMaskBytes),
                                   kBackwardFlopsFactor * kDropoutAddFlops * d.N(), dtype);
}

}  // namespace

TransformerModel::TransformerModel(const config::WorkloadSpec& spec, int micro_batch, DType dtype)
    : TransformerModel(spec, micro_batch, dtype, TensorSharding{}) {}

TransformerModel::TransformerModel(const config::WorkloadSpec& spec, int micro_batch, DType dtype,
                                   TensorSharding sharding)
    : TransformerModel(spec, micro_batch, dtype, sharding, config::Attention::Unfused) {}

TransformerModel::TransformerModel(const config::WorkloadSpec& spec, int micro_batch, DType dtype,
                                   TensorSharding sharding, config::Attention attention)
    : spec_(checked(spec, micro_batch)),
      micro_batch_(micro_batch),
      dtype_(dtype),
      sharding_(sharding),
      attention_(attention) {
  if (sharding.tp < 1 || spec_.heads % sharding.tp != 0 || spec_.ffn_hidden % sharding.tp != 0)
    throw Error(fmt::format("TransformerModel: workload '{}': tensor-parallel degree {} must divide heads ({}) and "
                            "ffn_hidden ({})",
                            spec_.name, sharding.tp, spec_.heads, spec_.ffn_hidden));
}

std::vector<std::vector<Kernel>> TransformerModel::layer_forward_parts() const {
  auto all = layer_forward();
  const auto cut = std::find_if(all.begin(), all.end(), [](const Kernel& k) { return k.name == "proj"; }) + 1;
  return {std::vector<Kernel>(all.begin(), cut), std::vector<Kernel>(cut, all.end())};
}

std::vector<std::vector<Kernel>> TransformerModel::layer_backward_parts() const {
  auto all = layer_backward();
  const auto cut = std::find_if(all.begin(), all.end(), [](const Kernel& k) { return k.name == "fc1.wgrad"; }) + 1;
  return {std::vector<Kernel>(all.begin(), cut), std::vector<Kernel>(cut, all.end())};
}

std::vector<Kernel> TransformerModel::attention_core_forward() const {
  std::vector<Kernel> core;
  if (fused_attention()) return core;
  for (auto& k : layer_forward())
    if (k.name == "attn_scores" || k.name == "softmax" || k.name == "attn_dropout" || k.name == "attn_v")
      core.push_back(std::move(k));
  return core;
}

std::vector<Kernel> TransformerModel::layer_forward() const {
  const Dims d = dims_of(*this);
  const DType t = dtype_;
  std::vector<Kernel> k;
  k.push_back(layernorm_forward("ln1", d, t));
  k.push_back(Kernel::make_gemm("qkv", GemmShape{d.tokens(), 3 * d.h / d.t, d.h, 1}, t));
  if (fused_attention()) {
    // scores, softmax, dropout (mask regenerated from the RNG state) and P.V in one kernel
    k.push_back(Kernel::make_fused_attention("attention", attention_shape(d, false), t));
  } else {
    k.push_back(Kernel::make_gemm("attn_scores", GemmShape{d.s, d.s, d.head_dim(), d.b * d.a}, t));
    // scale + causal mask + softmax: read the scores, write the probabilities
    k.push_back(Kernel::make_memory_bound("softmax", 2 * d.A() * d.e, kSoftmaxFlops * d.A(), t));
    // read the probabilities, write the dropped ones and the mask
    k.push_back(Kernel::make_memory_bound("attn_dropout", d.A() * (2 * d.e + kMaskBytes), kDropoutFlops * d.A(), t));
    k.push_back(Kernel::make_gemm("attn_v", GemmShape{d.s, d.head_dim(), d.s, d.b * d.a}, t));
  }
  k.push_back(Kernel::make_gemm("proj", GemmShape{d.tokens(), d.h, d.h / d.t, 1}, t));
  k.push_back(dropout_add_forward("dropout_add1", d, t));
  k.push_back(layernorm_forward("ln2", d, t));
  k.push_back(Kernel::make_gemm("fc1", GemmShape{d.tokens(), d.f, d.h, 1}, t));
  k.push_back(Kernel::make_memory_bound("gelu", 2 * d.F() * d.e, kGeluFlops * d.F(), t));
  k.push_back(Kernel::make_gemm("fc2", GemmShape{d.tokens(), d.h, d.f, 1}, t));
  k.push_back(dropout_add_forward("dropout_add2", d, t));
  return k;
}

std::vector<Kernel> TransformerModel::layer_backward() const {
  const Dims d = dims_of(*this);
  const DType t = dtype_;
  std::vector<Kernel> k;
  k.push_back(dropout_add_backward("dropout_add2", d, t));
  push_weight_gemm_backward(k, "fc2", GemmShape{d.tokens(), d.h, d.f, 1}, t);
  // read dy and the saved input, write dx
  k.push_back(Kernel::make_memory_bound("gelu.bwd", 3 * d.F() * d.e, kBackwardFlopsFactor * kGeluFlops * d.F(), t));
  push_weight_gemm_backward(k, "fc1", GemmShape{d.tokens(), d.f, d.h, 1}, t);
  k.push_back(layernorm_backward("ln2", d, t, true));
  k.push_back(dropout_add_backward("dropout_add1", d, t));
  push_weight_gemm_backward(k, "proj", GemmShape{d.tokens(), d.h, d.h / d.t, 1}, t);
  if (fused_attention()) {
    // recomputes S and P from Q, K and the saved logsumexp, then dV, dP, dS, dQ, dK in one kernel
    k.push_back(Kernel::make_fused_attention("attention.bwd", attention_shape(d, true), t));
  } else {
    // O = P . V per head: dP = dO . V^T (s, s, h/a) and dV = P^T . dO (s, h/a, s)
    k.push_back(Kernel::make_gemm("attn_v.dprobs", GemmShape{d.s, d.s, d.head_dim(), d.b * d.a}, t));
    k.push_back(Kernel::make_gemm("attn_v.dv", GemmShape{d.s, d.head_dim(), d.s, d.b * d.a}, t));
    // read dy and the mask, write dx
    k.push_back(Kernel::make_memory_bound("attn_dropout.bwd", d.A() * (2 * d.e + kMaskBytes),
                                          kBackwardFlopsFactor * kDropoutFlops * d.A(), t));
    // read the saved probabilities and dy, write dx
    k.push_back(Kernel::make_memory_bound("softmax.bwd", 3 * d.A() * d.e,
                                          kBackwardFlopsFactor * kSoftmaxFlops * d.A(), t));
    // S = Q . K^T per head: dQ = dS . K (s, h/a, s) and dK = dS^T . Q (s, h/a, s)
    k.push_back(Kernel::make_gemm("attn_scores.dq", GemmShape{d.s, d.head_dim(), d.s, d.b * d.a}, t));
    k.push_back(Kernel::make_gemm("attn_scores.dk", GemmShape{d.s, d.head_dim(), d.s, d.b * d.a}, t));
  }
  push_weight_gemm_backward(k, "qkv", GemmShape{d.tokens(), 3 * d.h / d.t, d.h, 1}, t);
  k.push_back(layernorm_backward("ln1", d, t, true));
  return k;
}

std::vector<Kernel> TransformerModel::embedding_forward() const {
  const Dims d = dims_of(*this);
  // gather b*s token rows, read s position rows (shared by the micro-batch), write their sum
  const double bytes = (2 * d.N() + static_cast<double>(d.s * d.h)) * d.e;
  return {Kernel::make_memory_bound("embedding", bytes, kEmbeddingFlops * d.N(), dtype_)};
}

std::vector<Kernel> TransformerModel::embedding_backward() const {
  const Dims d = dims_of(*this);
  // read dy; scatter-add into the token-embedding gradient (read + write b*s rows); sum over the
  // micro-batch into the position-embedding gradient (write s rows)
  const double bytes = (3 * d.N() + static_cast<double>(d.s * d.h)) * d.e;
  return {Kernel::make_memory_bound("embedding.bwd", bytes, kBackwardFlopsFactor * kEmbeddingFlops * d.N(), dtype_)};
}

std::vector<Kernel> TransformerModel::head_forward() const {
  const Dims d = dims_of(*this);
  const DType t = dtype_;
  std::vector<Kernel> k;
  k.push_back(layernorm_forward("final_ln", d, t));
  k.push_back(Kernel::make_gemm("logits", GemmShape{d.tokens(), d.V, d.h, 1}, t));
  // Megatron's vocab-parallel cross-entropy on the fp32 logits, pass by pass (priced at the
  // training dtype's peak so that only that dtype needs one; its FLOPs never decide the time).
  k.push_back(Kernel::make_memory_bound("cross_entropy", d.L() * cross_entropy_forward_bytes_per_logit(d.e),
                                        kCrossEntropyFlops * d.L(), t));
  return k;
}

std::vector<Kernel> TransformerModel::head_backward() const {
  const Dims d = dims_of(*this);
  const DType t = dtype_;
  std::vector<Kernel> k;
  k.push_back(Kernel::make_memory_bound("cross_entropy.bwd", d.L() * cross_entropy_backward_bytes_per_logit(d.e),
                                        kCrossEntropyBwdFlops * d.L(), t));
  push_weight_gemm_backward(k, "logits", GemmShape{d.tokens(), d.V, d.h, 1}, t);
  k.push_back(layernorm_backward("final_ln", d, t, false));
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

OptimizerTraffic optimizer_traffic(bool adam, DType precision) {
  // Update kernel (apex FusedAdam / SGD) on fp32 state: Adam reads p, g, m, v and writes p, m, v
  // (28 B; FLOPs: m 3, v 4, update 5); SGD with momentum reads p, g, buf and writes p, buf (20 B;
  // FLOPs: momentum 2, update 2). Every step also takes the gradient norm for clipping (read 4 B,
  // 2 FLOP).
  OptimizerTraffic o;
  o.bytes_per_parameter = (adam ? 28.0 : 20.0) + kFp32Bytes;
  o.flops_per_parameter = (adam ? 12.0 : 4.0) + 2;
  if (precision == DType::fp32 || precision == DType::tf32) return o;
  // Mixed precision as Megatron-LM's Float16Optimizer runs it: copy the 16-bit gradients into
  // fp32 main gradients (2 + 4), with fp16 unscale them and check for inf/NaN (4 + 4, 1 FLOP),
  // and after the update copy the fp32 main weights back to the 16-bit model (4 + 2). FP8
  // training keeps 16-bit weights and gradients (Transformer Engine).
  constexpr double kHalf = 2;
  o.bytes_per_parameter += 2 * (kHalf + kFp32Bytes);
  if (precision == DType::fp16) {
    o.bytes_per_parameter += 2 * kFp32Bytes;
    o.flops_per_parameter += 1;
  }
  return o;
}

Kernel TransformerModel::optimizer_step(double parameters, bool adam, DType precision, DType arithmetic) {
  if (!(parameters >= 0))
    throw Error(fmt::format("TransformerModel::optimizer_step: parameters must be >= 0, got {}", parameters));
  const OptimizerTraffic o = optimizer_traffic(adam, precision);
  return Kernel::make_memory_bound(adam ? "optimizer.adam" : "optimizer.sgd", o.bytes_per_parameter * parameters,
                                   o.flops_per_parameter * parameters, arithmetic);
}

double TransformerModel::parameters_per_layer() const {
  const auto h = static_cast<double>(spec_.hidden);
  const auto f = static_cast<double>(spec_.ffn_hidden);
  const double qkv = 3 * h * h + 3 * h;
  const double proj = h * h + h;
  const double fc1 = h * f + f;
  const double fc2 = f * h + h;
  const double layernorms = 2 * (2 * h);  // gamma and beta of ln1 and ln2
  return qkv + proj + fc1 + fc2 + layernorms;  // = 4h^2 + 2hf + 9h + f = 12h^2 + 13h at f = 4h
}

double TransformerModel::embedding_parameters() const {
  return (static_cast<double>(spec_.vocab_size) + spec_.seq_length) * static_cast<double>(spec_.hidden);
}

double TransformerModel::head_parameters() const {
  return 2.0 * spec_.hidden;  // final layernorm; the logits weight is the tied token embedding
}

double TransformerModel::total_parameters() const {
  return spec_.layers * parameters_per_layer() + embedding_parameters() + head_parameters();
}

}  // namespace clearfog::workload
