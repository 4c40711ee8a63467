// Kernels of CNN layers, pass by pass; the byte counts and their sources are in
// docs/workloads.md ("Workload type `cnn`", "Kernels").
#include "workload/types/CnnLayerKernels.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace clearfog::workload {

using kernels::GemmShape;
using kernels::Kernel;

namespace {

constexpr double kPoolIndexBytes = 8;  // PyTorch's max pooling keeps an int64 index per output element
constexpr double kMaskBytes = 1;   // a dropout mask element (bool)
constexpr double kStatisticBytes = 4;   // batch-norm statistics, the loss's log-probabilities

// Arithmetic per element of the memory-bound kernels (they never decide the time: bytes do).
constexpr double kBnStatsFlops = 3;     // Welford update: mean and squared deviation
constexpr double kBnApplyFlops = 2;     // (x - mean) * (invstd * gamma) + beta as one multiply-add after the subtraction
constexpr double kBnReduceFlops = 3;    // sum dy, sum dy * x_hat (x_hat from x, mean, invstd)
constexpr double kBnBackwardFlops = 5;  // dx = (dy - mean(dy) - x_hat * mean(dy x_hat)) * gamma * invstd
constexpr double kLossFlops = 5;        // max, exp, sum, log, subtract per logit
constexpr double kMaskBytesPerElement = 1.0 / 8;  // the fused ReLU's bitmask: one bit per element

/// The layer's dims for a micro-batch of b images, and whether its input's gradient is needed.
struct Sizes {
  double b, e;
  TensorDims in, out;
  bool input_grad;
  MemoryFormat format;
  [[nodiscard]] double in_elements() const { return b * in.elements(); }
  [[nodiscard]] double out_elements() const { return b * out.elements(); }
};

Kernel memory_bound(std::string name, double bytes, double flops, DType dtype) {
  return Kernel::make_memory_bound(std::move(name), bytes, flops, dtype);
}

/// A parameter tensor; `rows` is its first dimension (output channels of a weight), 1 for vectors.
ParamTensor param(std::string name, double elements, double rows = 1) {
  ParamTensor t{std::move(name), elements, elements, ""};
  t.rows = rows;
  return t;
}

/// A convolution as three implicit GEMMs (cuDNN's fprop, dgrad, wgrad; NHWC): each multiplies the
/// im2col view of one operand but reads the tensor itself from memory once.
void conv_gemms(LayerPasses& p, const CnnLayer& l, const Sizes& s, const std::string& name, bool input_grad,
                DType dtype) {
  const long long g = l.groups, area = static_cast<long long>(l.kernel) * l.kernel;
  const long long ci = s.in.c / g, co = l.out / g;
  const auto b = static_cast<long long>(s.b);
  const long long out_pixels = b * s.out.h * s.out.w, in_pixels = b * s.in.h * s.in.w;
  const auto dense = [](long long rows, long long cols) { return static_cast<double>(rows) * static_cast<double>(cols); };
  // Forward: [b*Ho*Wo x Cin/g*kh*kw] . [Cin/g*kh*kw x Cout/g] per group; A is the input image
  // (all of it, or the pixels a stride larger than the kernel touches).
  GemmShape fwd{out_pixels, co, ci * area, g};
  fwd.a_elements = std::min(dense(out_pixels, ci * area), dense(in_pixels, ci));
  p.forward.push_back(Kernel::make_gemm(name, fwd, dtype));
  // Data gradient: the transposed convolution, the same multiply-adds as the forward (cuDNN's
  // strided dgrad skips the zeros a stride would insert): [b*Ho*Wo x Cout/g*kh*kw] . [.. x Cin/g],
  // reading dY and writing the whole dX.
  if (input_grad) {
    GemmShape dgrad{out_pixels, ci, co * area, g};
    dgrad.a_elements = std::min(dense(out_pixels, co * area), dense(out_pixels, co));
    dgrad.c_elements = dense(in_pixels, ci);
    p.backward.push_back(Kernel::make_gemm(name + ".dgrad", dgrad, dtype));
  }
  // Weight gradient: [Cout/g x b*Ho*Wo] . [b*Ho*Wo x Cin/g*kh*kw]: a small output over a long k,
  // which cuDNN splits over the SMs and sums (GemmShape::split_k).
  GemmShape wgrad{co, ci * area, out_pixels, g};
  wgrad.b_elements = std::min(dense(out_pixels, ci * area), dense(in_pixels, ci));
  wgrad.split_k = true;
  p.backward.push_back(kernels::weight_gradient(Kernel::make_gemm(name + ".wgrad", wgrad, dtype)));
}

/// With channels-first tensors, one cuDNN convolution call (fprop, dgrad or wgrad) transposes its
/// two operands to NHWC and its result back: a read and a write of each of the three tensors.
Kernel layout_transposes(const std::string& name, double operand_a, double operand_b, double result, DType dtype) {
  const double elements = operand_a + operand_b + result;
  return Kernel::make_memory_bound(name, 2 * elements * dtype_bytes(dtype), 0, dtype);
}

/// A convolution too narrow for a GEMM (depthwise), as one channels-last pass per gradient: read
/// the input and the weights, write the output.
void conv_memory_bound(LayerPasses& p, const CnnLayer& l, const Sizes& s, const std::string& name, bool input_grad,
                       DType dtype) {
  const double weights = static_cast<double>(l.out) * static_cast<double>(s.in.c / l.groups) * l.kernel * l.kernel;
  const double flops = 2 * s.out_elements() * static_cast<double>(s.in.c / l.groups) * l.kernel * l.kernel;
  const double bytes = (s.in_elements() + s.out_elements() + weights) * s.e;
  const auto conv = [&](std::string n) {
    Kernel k = memory_bound(std::move(n), bytes, flops, dtype);
    k.model_flops = flops;  // the model's own multiply-adds, on CUDA cores
    return k;
  };
  p.forward.push_back(conv(name));
  if (input_grad) p.backward.push_back(conv(name + ".dgrad"));
  p.backward.push_back(kernels::weight_gradient(conv(name + ".wgrad")));
}

void conv(LayerPasses& p, const CnnLayer& l, const LayerGraph& g, const Sizes& s, const std::string& name,
          DType dtype) {
  if (l.bias) {
    // cuDNN adds the bias in its own pass (cudnnAddTensor) and sums dY for its gradient.
    const double y = s.out_elements();
    p.backward.push_back(memory_bound(name + ".dbias", y * s.e, y, dtype));
  }
  const double weights = static_cast<double>(l.out) * static_cast<double>(s.in.c / l.groups) * l.kernel * l.kernel;
  if (conv_is_memory_bound(l, g)) {
    conv_memory_bound(p, l, s, name, s.input_grad, dtype);
  } else {
    if (s.format == MemoryFormat::ChannelsFirst) {
      const double x = s.in_elements(), y = s.out_elements();
      p.forward.push_back(layout_transposes(name + ".nhwc", x, weights, y, dtype));
      if (s.input_grad) p.backward.push_back(layout_transposes(name + ".dgrad.nhwc", y, weights, x, dtype));
      conv_gemms(p, l, s, name, s.input_grad, dtype);
      // the weight gradient's transposes belong to its (deferrable) pass
      p.backward.insert(p.backward.end() - 1,
                        kernels::weight_gradient(layout_transposes(name + ".wgrad.nhwc", x, y, weights, dtype)));
    } else {
      conv_gemms(p, l, s, name, s.input_grad, dtype);
    }
  }
  if (l.bias) p.forward.push_back(memory_bound(name + ".bias", 2 * s.out_elements() * s.e, s.out_elements(), dtype));
  p.saved.push_back({g.input, s.in_elements() * s.e});
  if (l.bias) p.params.push_back(param("bias", l.out));
  p.params.push_back(param("weight", weights, static_cast<double>(l.out)));
}

void batch_norm(LayerPasses& p, const LayerGraph& g, const Sizes& s, const std::string& name, DType dtype) {
  // Training-mode batch norm, PyTorch/cuDNN: forward reads x for the per-channel statistics, then
  // reads x again and writes y; backward reads dy and x for the two per-channel sums (the
  // gradients of gamma and beta), then reads dy and x again and writes dx.
  const double n = s.in_elements(), e = s.e;
  p.forward.push_back(memory_bound(name + ".stats", n * e, kBnStatsFlops * n, dtype));
  p.forward.push_back(memory_bound(name, 2 * n * e, kBnApplyFlops * n, dtype));
  p.backward.push_back(memory_bound(name + ".reduce", 2 * n * e, kBnReduceFlops * n, dtype));
  if (s.input_grad) p.backward.push_back(memory_bound(name + ".dgrad", 3 * n * e, kBnBackwardFlops * n, dtype));
  // x, and the fp32 mean and inverse standard deviation per channel
  p.saved.push_back({g.input, n * e});
  p.saved.push_back({kOwnTensor, 2 * static_cast<double>(s.in.c) * kStatisticBytes});
  p.params.push_back(param("bias", static_cast<double>(s.in.c)));
  p.params.push_back(param("weight", static_cast<double>(s.in.c)));
}

void pooling(LayerPasses& p, const CnnLayer& l, const LayerGraph& g, const Sizes& s, const std::string& name,
             DType dtype) {
  const double x = s.in_elements(), y = s.out_elements(), e = s.e;
  const double window = l.kind == CnnLayerKind::GlobalAvgPool ? static_cast<double>(s.in.h * s.in.w) : static_cast<double>(l.kernel) * l.kernel;
  // Max pooling writes (and its backward reads) an int64 index per output; average pooling
  // recomputes the window.
  const double index = l.kind == CnnLayerKind::MaxPool ? kPoolIndexBytes : 0.0;
  p.forward.push_back(memory_bound(name, x * e + y * (e + index), window * y, dtype));
  if (s.input_grad) p.backward.push_back(memory_bound(name + ".bwd", y * (e + index) + x * e, window * y, dtype));
  // autograd keeps the input of every pooling (for its shape and, for max pooling, its values)
  p.saved.push_back({g.input, x * e});
  if (index > 0) p.saved.push_back({kOwnTensor, y * index});
}

void fully_connected(LayerPasses& p, const CnnLayer& l, const LayerGraph& g, const Sizes& s, const std::string& name,
                     DType dtype) {
  const auto b = static_cast<long long>(s.b);
  const long long f = s.in.c, o = l.out;
  p.forward.push_back(Kernel::make_gemm(name, GemmShape{b, o, f, 1}, dtype));
  if (l.bias) p.backward.push_back(memory_bound(name + ".dbias", s.out_elements() * s.e, s.out_elements(), dtype));
  if (s.input_grad) p.backward.push_back(Kernel::make_gemm(name + ".dgrad", GemmShape{b, f, o, 1}, dtype));
  p.backward.push_back(Kernel::make_gemm(name + ".wgrad", GemmShape{o, f, b, 1}, dtype));
  p.saved.push_back({g.input, s.in_elements() * s.e});
  if (l.bias) p.params.push_back(param("bias", static_cast<double>(o)));
  p.params.push_back(param("weight", static_cast<double>(o) * static_cast<double>(f), static_cast<double>(o)));
}

void elementwise(LayerPasses& p, const CnnLayer& l, long long index, const Sizes& s, const std::string& name,
                 DType dtype) {
  const double n = s.in_elements(), e = s.e;
  switch (l.kind) {
    case CnnLayerKind::Relu:
      // forward reads x, writes y; backward reads y (kept: ReLU's gradient is dy where y > 0) and dy, writes dx
      p.forward.push_back(memory_bound(name, 2 * n * e, n, dtype));
      if (s.input_grad) p.backward.push_back(memory_bound(name + ".bwd", 3 * n * e, n, dtype));
      p.saved.push_back({index, n * e});
      break;
    case CnnLayerKind::Add:
      // reads both addends, writes the sum; its backward hands dy to both (no kernel)
      p.forward.push_back(memory_bound(name, 3 * n * e, n, dtype));
      break;
    case CnnLayerKind::Dropout:
      // forward reads x, writes y and the mask; backward reads dy and the mask, writes dx
      p.forward.push_back(memory_bound(name, n * (2 * e + kMaskBytes), 2 * n, dtype));
      if (s.input_grad) p.backward.push_back(memory_bound(name + ".bwd", n * (2 * e + kMaskBytes), n, dtype));
      p.saved.push_back({kOwnTensor, n * kMaskBytes});
      break;
    case CnnLayerKind::Loss:
      // softmax cross-entropy in fp32 (autocast): log-softmax reads the logits and writes fp32
      // log-probabilities, the (label-smoothed) negative log-likelihood reads them; backward reads
      // them and writes the logits' gradient.
      p.forward.push_back(memory_bound(name + ".log_softmax", n * (e + kStatisticBytes), kLossFlops * n, dtype));
      p.forward.push_back(memory_bound(name + ".nll", n * kStatisticBytes, n, dtype));
      if (s.input_grad) p.backward.push_back(memory_bound(name + ".bwd", n * (kStatisticBytes + e), 2 * n, dtype));
      p.saved.push_back({kOwnTensor, n * kStatisticBytes});
      break;
    default: break;  // flatten: a view
  }
}

}  // namespace

bool conv_is_memory_bound(const CnnLayer& layer, const LayerGraph& graph) {
  const long long n = layer.out / layer.groups;
  const long long k = graph.in.c / layer.groups * layer.kernel * layer.kernel;
  return n < kMinGemmChannels || k < kMinGemmChannels;
}

double conv_macs_per_image(const CnnLayer& layer, const LayerGraph& graph) {
  return graph.out.elements() * static_cast<double>(graph.in.c / layer.groups) * layer.kernel * layer.kernel;
}

std::vector<bool> output_gradients(const std::vector<CnnLayer>& layers, const CnnNetwork& net) {
  std::vector<bool> grad(layers.size(), false);
  const auto needs = [&](long long producer) { return producer >= 0 && grad[static_cast<std::size_t>(producer)]; };
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const CnnLayerKind k = layers[i].kind;
    const bool params = k == CnnLayerKind::Conv || k == CnnLayerKind::BatchNorm || k == CnnLayerKind::Fc;
    grad[i] = params || needs(net.layers[i].input) || (k == CnnLayerKind::Add && needs(net.layers[i].shortcut));
  }
  return grad;
}

Kernel gradient_sum(const std::string& name, double elements, int readers, DType dtype) {
  const double adds = readers - 1;
  return memory_bound(name, adds * 3 * elements * dtype_bytes(dtype), adds * elements, dtype);
}

LayerPasses fused_batchnorm_relu(const LayerGraph& graph, const std::string& name, int micro_batch, DType dtype,
                                 bool input_grad, bool add_shortcut, bool shortcut_grad) {
  LayerPasses p;
  const double e = dtype_bytes(dtype), n = micro_batch * graph.in.elements();
  const double mask = n * kMaskBytesPerElement;
  const std::string fused = name + (add_shortcut ? ".add.relu" : ".relu");
  // Forward: the statistics pass reads x; the second reads x (and the shortcut), writes the ReLU's
  // output and its bitmask: 3ne + n/8 bytes (4ne + n/8 with the add) where unfused batch norm,
  // add and ReLU move 5ne (8ne).
  const double reads = add_shortcut ? 2 : 1;
  p.forward.push_back(memory_bound(name + ".stats", n * e, kBnStatsFlops * n, dtype));
  p.forward.push_back(memory_bound(fused, (reads + 1) * n * e + mask, (kBnApplyFlops + reads) * n, dtype));
  // Backward: the ReLU's gradient is the output gradient where the bitmask is set, formed on the
  // fly by both passes: the sums read dz, x and the mask; the data pass reads them again and
  // writes dx and, with the add, the shortcut's gradient.
  p.backward.push_back(memory_bound(fused + ".reduce", 2 * n * e + mask, (kBnReduceFlops + 1) * n, dtype));
  // Without dx the pass only forms the shortcut's gradient: dz and the mask in, dz·mask out.
  const bool shortcut_out = add_shortcut && shortcut_grad;
  if (input_grad)
    p.backward.push_back(memory_bound(fused + ".dgrad", (shortcut_out ? 4 : 3) * n * e + mask,
                                      (kBnBackwardFlops + 1) * n, dtype));
  else if (shortcut_out)
    p.backward.push_back(memory_bound(fused + ".dgrad", 2 * n * e + mask, n, dtype));
  // x, the fp32 mean and inverse standard deviation per channel, the bitmask
  p.saved.push_back({graph.input, n * e});
  p.saved.push_back({kOwnTensor, 2 * static_cast<double>(graph.in.c) * kStatisticBytes + mask});
  p.params.push_back(param("bias", static_cast<double>(graph.in.c)));
  p.params.push_back(param("weight", static_cast<double>(graph.in.c)));
  return p;
}

bool batchnorm_relu_fusion_applies(DType dtype, MemoryFormat format) {
  return (dtype == DType::fp16 || dtype == DType::bf16) && format == MemoryFormat::ChannelsLast;
}

LayerPasses layer_passes(const CnnLayer& layer, const LayerGraph& graph, long long index, const std::string& name,
                         int micro_batch, DType dtype, bool input_grad, MemoryFormat format) {
  LayerPasses p;
  const Sizes s{static_cast<double>(micro_batch), dtype_bytes(dtype), graph.in, graph.out, input_grad, format};
  switch (layer.kind) {
    case CnnLayerKind::Conv: conv(p, layer, graph, s, name, dtype); break;
    case CnnLayerKind::BatchNorm: batch_norm(p, graph, s, name, dtype); break;
    case CnnLayerKind::MaxPool:
    case CnnLayerKind::AvgPool:
    case CnnLayerKind::GlobalAvgPool: pooling(p, layer, graph, s, name, dtype); break;
    case CnnLayerKind::Fc: fully_connected(p, layer, graph, s, name, dtype); break;
    case CnnLayerKind::Relu:
    case CnnLayerKind::Add:
    case CnnLayerKind::Dropout:
    case CnnLayerKind::Loss:
    case CnnLayerKind::Flatten: elementwise(p, layer, index, s, name, dtype); break;
  }
  return p;
}

}  // namespace clearfog::workload
