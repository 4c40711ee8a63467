#pragma once
// Constants and kernel helpers shared by the transformer's dense kernels (TransformerModel.cpp) and
// its Mixture-of-Experts kernels (TransformerMoeKernels.cpp). Internal to the workload library.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "core/Errors.hpp"
#include "workload/TransformerModel.hpp"

namespace clearfog::workload::parts {

using kernels::GemmShape;
using kernels::Kernel;

// Per-element FLOPs of the memory-bound forward ops. They never decide a roofline time (these ops
// do < 3 FLOP/B, ~50x below an A100's ridge point) but keep the FLOP totals honest.
inline constexpr double kLayerNormFlops = 8;        // mean 1, variance 3, normalize 2, scale+shift 2
inline constexpr double kRmsNormFlops = 4;          // square 1, sum 1, normalize 1, scale 1
inline constexpr double kSoftmaxFlops = 7;          // scale, mask, max, subtract, exp, sum, divide
inline constexpr double kAlibiFlops = 1;            // the head's linear bias added to each score
inline constexpr double kDropoutFlops = 2;          // keep/drop select, multiply by 1/(1-p)
inline constexpr double kDropoutAddFlops = 3;       // dropout 2 + residual add 1
inline constexpr double kAddFlops = 1;              // residual add
inline constexpr double kGeluFlops = 9;             // tanh form: x^3 2, *0.044715 1, +x 1, *sqrt(2/pi) 1,
                                             // tanh 1, +1 1, *x 1, *0.5 1
inline constexpr double kSiluFlops = 4;             // x / (1 + exp(-x)): negate, exp, add, divide
inline constexpr double kGateFlops = 1;             // activation(gate) * up
inline constexpr double kRotaryFlops = 3;           // x*cos + rotate(x)*sin per element
inline constexpr double kCrossEntropyFlops = 4;     // max, subtract, exp, sum (per-row log ignored)
inline constexpr double kCrossEntropyBwdFlops = 2;  // softmax - one_hot, scale by the loss gradient
inline constexpr double kEmbeddingFlops = 1;        // token row + position row
// Backward memory-bound ops: twice the forward's per-element FLOPs (derivative plus the reduction
// or accumulation each of them needs). Their bytes are counted op by op below.
inline constexpr double kBackwardFlopsFactor = 2;

inline constexpr double kMaskBytes = 1;  // dropout masks are stored as one byte per element (PyTorch bool)
inline constexpr double kFp32Bytes = 4;  // the cross-entropy's softmax is computed and stored in fp32

inline void require_positive(const TransformerSpec& w, const char* key, long long value) {
  if (value <= 0) throw Error(fmt::format("TransformerModel: {} must be > 0, got {}", key, value));
  (void)w;
}

// Integer dimensions for GEMM shapes, doubles for byte and FLOP formulas.
struct Dims {
  long long b, s, h;
  long long a, k, d;   // query heads and KV heads of this rank, head dimension
  long long f;         // MLP hidden of this rank
  long long V;         // vocabulary of this rank
  double e;            // bytes of an element
  long long t;         // tensor-parallel degree
  double seq_share;    // share of the sequence norms, dropouts and adds work on (1/t with SP)
  [[nodiscard]] long long tokens() const { return b * s; }
  [[nodiscard]] double full() const { return static_cast<double>(b * s * h); }           // b*s*h
  [[nodiscard]] double N() const { return full() * seq_share; }                          // residual stream
  [[nodiscard]] double A() const { return static_cast<double>(b * a) * static_cast<double>(s * s); }
  [[nodiscard]] double F() const { return static_cast<double>(b * s * f); }              // MLP hidden
  [[nodiscard]] double L() const { return static_cast<double>(b * s * V); }              // logits
  [[nodiscard]] double Q() const { return static_cast<double>(b * s * a * d); }          // queries
  [[nodiscard]] double KV() const { return static_cast<double>(b * s * k * d); }         // keys (or values)
};

inline Dims dims_of(const TransformerModel& model, int layer) {
  const auto& w = model.spec();
  const long long t = model.sharding().tp;
  const LayerShape shape = w.layer(layer);
  // The vocabulary is padded to a multiple of t (Megatron pads to 128*t); rounding up is enough here.
  return Dims{model.micro_batch(),
              w.seq_length,
              w.hidden,
              w.heads / t,
              shape.kv_heads / t,
              w.resolved_head_dim(),
              shape.ffn_hidden / t,
              (w.vocab_size + t - 1) / t,
              dtype_bytes(model.dtype()),
              t,
              model.sharding().sequence_parallel ? 1.0 / static_cast<double>(t) : 1.0};
}

// FP8 training (Transformer Engine's recipes, torchao's float8 training): activations stay in bf16
// and each weight GEMM's operands are cast to fp8 first. A cast-transpose kernel reads the bf16
// tensor and writes it twice in fp8, row-wise for this GEMM and column-wise for the other GEMM that
// uses it (the weight gradient's X^T, or the input gradient's dY^T): 2 + 1 + 1 bytes per element.
// Where a norm feeds the GEMM (TE's LayerNormLinear: qkv, fc1) the norm writes the fp8 copies itself,
// so the cast adds only the two fp8 writes.
inline constexpr double kCastTransposeBytes = 4;
inline constexpr double kNormCastBytes = 2;
inline constexpr double kCastFlops = 2;  // |x| into the running amax, multiply by the scale

/// Whether `model` runs its weight GEMMs in a narrower type than its activations (fp8 training).
inline bool casts_gemm_inputs(const TransformerModel& model) { return model.gemm_dtype() != model.dtype(); }

/// a * b * c as a double (element counts of GEMM operands).
inline double product(long long a, long long b, long long c) {
  return static_cast<double>(a) * static_cast<double>(b) * static_cast<double>(c);
}

/// Bytes per element of a GEMM input kept for the weight gradient: the activation's, or in fp8
/// training the fp8 copy the cast made (Transformer Engine's Linear saves it instead of the bf16 tensor).
inline double saved_gemm_input_bytes(const TransformerModel& model) {
  return dtype_bytes(casts_gemm_inputs(model) ? model.gemm_dtype() : model.dtype());
}

inline Kernel fp8_cast(const std::string& name, double elements, double bytes_per_element, DType dtype) {
  return Kernel::make_memory_bound(name, bytes_per_element * elements, kCastFlops * elements, dtype);
}

/// A weight GEMM Y = X W (`fwd`), preceded in fp8 training by the cast of X (`after_norm`: fused into
/// the norm that produced X).
inline void push_linear(std::vector<Kernel>& out, const TransformerModel& model, const std::string& name,
                        GemmShape fwd, bool after_norm = false) {
  if (casts_gemm_inputs(model))
    out.push_back(fp8_cast(name + ".cast", product(fwd.m, fwd.k, fwd.batch),
                           after_norm ? kNormCastBytes : kCastTransposeBytes, model.dtype()));
  out.push_back(Kernel::make_gemm(name, fwd, model.gemm_dtype()));
}

// Y[m x n] = X[m x k] . W[k x n] gives dX = dY . W^T (m, k, n) and dW = X^T . dY (k, n, m).
inline void push_weight_gemm_backward(std::vector<Kernel>& out, const std::string& name, GemmShape fwd, DType dtype,
                               bool input_gradient = true) {
  if (input_gradient)
    out.push_back(Kernel::make_gemm(name + ".dgrad", GemmShape{fwd.m, fwd.k, fwd.n, fwd.batch}, dtype));
  out.push_back(kernels::weight_gradient(Kernel::make_gemm(name + ".wgrad", GemmShape{fwd.k, fwd.n, fwd.m, fwd.batch}, dtype)));
}

/// The backward of push_linear: in fp8 training the output gradient dY is cast first.
inline void push_linear_backward(std::vector<Kernel>& out, const TransformerModel& model, const std::string& name,
                                 GemmShape fwd, bool input_gradient = true) {
  if (casts_gemm_inputs(model))
    out.push_back(fp8_cast(name + ".cast.bwd", product(fwd.m, fwd.n, fwd.batch), kCastTransposeBytes,
                           model.dtype()));
  push_weight_gemm_backward(out, name, fwd, model.gemm_dtype(), input_gradient);
}

inline double norm_flops(NormKind n) { return n == NormKind::LayerNorm ? kLayerNormFlops : kRmsNormFlops; }

// A norm forward reads x and writes y; backward reads dy and x and writes dx. With
// `accumulate_residual` (the norms inside a layer) the backward also reads the gradient that
// reached the residual stream through the skip connection and writes the sum.
inline Kernel norm_forward(const std::string& name, double elements, double e, NormKind n, DType dtype) {
  return Kernel::make_memory_bound(name, 2 * elements * e, norm_flops(n) * elements, dtype);
}
inline Kernel norm_backward(const std::string& name, double elements, double e, NormKind n, DType dtype,
                     bool accumulate_residual) {
  const double tensors = accumulate_residual ? 4 : 3;
  return Kernel::make_memory_bound(name + ".bwd", tensors * elements * e,
                                   kBackwardFlopsFactor * norm_flops(n) * elements, dtype);
}

// Dropout + residual add forward reads the branch output and the residual, writes the sum and the
// mask; without dropout a plain add. Backward of the dropout reads dy and the mask and writes the
// branch gradient (the residual gradient is dy itself and is summed in by the norm below it); a
// plain add's backward is that identity and runs no kernel.
inline Kernel residual_forward(const std::string& name, const Dims& d, bool dropout, DType dtype) {
  if (!dropout) return Kernel::make_memory_bound("add" + name, 3 * d.N() * d.e, kAddFlops * d.N(), dtype);
  return Kernel::make_memory_bound("dropout_add" + name, d.N() * (3 * d.e + kMaskBytes), kDropoutAddFlops * d.N(),
                                   dtype);
}
inline void push_residual_backward(std::vector<Kernel>& out, const std::string& name, const Dims& d, bool dropout,
                            DType dtype) {
  if (!dropout) return;
  out.push_back(Kernel::make_memory_bound("dropout_add" + name + ".bwd", d.N() * (2 * d.e + kMaskBytes),
                                          kBackwardFlopsFactor * kDropoutAddFlops * d.N(), dtype));
}

// The MLP activation over F hidden elements: GeLU reads and writes F; a gated unit reads gate and
// up (2F) and writes F. Backward reads dy and what the forward read and writes its gradients.
inline Kernel activation_forward(MlpKind mlp, double F, double e, DType dtype) {
  switch (mlp) {
    case MlpKind::Gelu: return Kernel::make_memory_bound("gelu", 2 * F * e, kGeluFlops * F, dtype);
    case MlpKind::SwiGlu: return Kernel::make_memory_bound("swiglu", 3 * F * e, (kSiluFlops + kGateFlops) * F, dtype);
    case MlpKind::GeGlu: return Kernel::make_memory_bound("geglu", 3 * F * e, (kGeluFlops + kGateFlops) * F, dtype);
  }
  return Kernel::make_memory_bound("gelu", 0, 0, dtype);
}
inline Kernel activation_backward(MlpKind mlp, double F, double e, DType dtype) {
  const Kernel fwd = activation_forward(mlp, F, e, dtype);
  const double bytes = gated(mlp) ? 5 * F * e : 3 * F * e;
  return Kernel::make_memory_bound(fwd.name + ".bwd", bytes, kBackwardFlopsFactor * fwd.flops, dtype);
}
inline Kernel activation_forward(MlpKind mlp, const Dims& d, DType dtype) { return activation_forward(mlp, d.F(), d.e, dtype); }
inline Kernel activation_backward(MlpKind mlp, const Dims& d, DType dtype) {
  return activation_backward(mlp, d.F(), d.e, dtype);
}

inline Kernel rotary(const std::string& name, const Dims& d, DType dtype) {
  // applied to this rank's queries and keys: read and write each
  const double elements = d.Q() + d.KV();
  return Kernel::make_memory_bound(name, 2 * elements * d.e, kRotaryFlops * elements, dtype);
}

inline long long mlp_in_width(const Dims& d, MlpKind mlp) { return (gated(mlp) ? 2 : 1) * d.f; }


}  // namespace clearfog::workload::parts
