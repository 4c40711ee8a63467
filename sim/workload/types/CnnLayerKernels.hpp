#pragma once
// The kernels one CNN layer runs for a micro-batch, pass by pass as PyTorch and cuDNN run them
// (channels-last), the tensors it keeps for its backward, and its parameters. Convolutions are
// implicit GEMMs priced by the blocked-GEMM model; batch norm, ReLU, pooling, residual adds,
// dropout and the loss are memory-bound kernels whose bytes are counted pass by pass.
// docs/workloads.md, "Workload type `cnn`".
#include <string>
#include <vector>

#include "core/DType.hpp"
#include "kernels/Kernel.hpp"
#include "workload/ModelDescription.hpp"
#include "workload/types/CnnNetwork.hpp"

namespace clearfog::workload {

/// A tensor kept from forward for backward: the output of layer `producer` (kImage: the network's
/// input), or — with producer kOwnTensor — one the layer makes for itself (pooling indices, batch
/// norm statistics, a dropout mask, the loss's log-probabilities).
inline constexpr long long kOwnTensor = -3;
struct SavedTensor {
  long long producer = kOwnTensor;
  double bytes = 0;
};

struct LayerPasses {
  std::vector<kernels::Kernel> forward;
  std::vector<kernels::Kernel> backward;  // its input's gradient (unless it reads the image) and its parameters'
  std::vector<SavedTensor> saved;
  std::vector<ParamTensor> params;        // in the order backward completes them
};

/// What layer `index` runs for `micro_batch` images in `dtype`; kernel names start with `name`.
/// `graph` is the layer's resolved input and shapes (analyze_network). `input_grad`: the gradient
/// of its input is needed (a layer before it has parameters); else its backward computes only its
/// own parameters' gradients (the first convolution has no data gradient).
/// `format`: channels_first adds the transposes around every tensor-core convolution call.
LayerPasses layer_passes(const CnnLayer& layer, const LayerGraph& graph, long long index, const std::string& name,
                         int micro_batch, DType dtype, bool input_grad, MemoryFormat format);

/// A batch norm fused with the ReLU after it, and with a residual add between them when
/// `add_shortcut` (cuDNN's NHWC batch norm with CUDNN_BATCHNORM_OPS_BN_ACTIVATION or
/// BN_ADD_ACTIVATION, as MXNet's --fuse-bn-relu and --fuse-bn-add-relu run it): one statistics pass
/// and one pass that normalizes, adds the shortcut, applies the ReLU and writes a bitmask of where
/// it passed; backward, the two per-channel sums and the data gradient read the output gradient,
/// x and the bitmask, and the data pass also writes the shortcut's gradient. `graph` is the batch
/// norm's; `input_grad` and `shortcut_grad`: whether its input's and the shortcut's gradients are
/// needed. The ReLU and the add then run no kernel of their own. docs/workloads.md, "Kernels".
LayerPasses fused_batchnorm_relu(const LayerGraph& graph, const std::string& name, int micro_batch, DType dtype,
                                 bool input_grad, bool add_shortcut, bool shortcut_grad);

/// Whether the fused batch norm exists for these tensors: 16-bit (fp16, bf16) and channels-last,
/// the configuration DeepLearningExamples' MXNet recipe fuses in (its float32 runs pass no --fuse
/// flags); elsewhere a profile's fusion leaves the chain unfused and an explicit
/// training.batchnorm_relu_fusion: true is refused.
bool batchnorm_relu_fusion_applies(DType dtype, MemoryFormat format);

/// Per layer: whether the gradient of its output is needed, i.e. it or a layer before it on its
/// path from the image has parameters (autograd's requires_grad).
std::vector<bool> output_gradients(const std::vector<CnnLayer>& layers, const CnnNetwork& net);

/// Whether a convolution is too narrow for a tensor-core GEMM and runs as a memory-bound kernel:
/// fewer than kMinGemmChannels output channels per group (the GEMM's N) or input elements per
/// output (its K): depthwise and narrow grouped convolutions.
bool conv_is_memory_bound(const CnnLayer& layer, const LayerGraph& graph);
/// One tensor-core MMA's n and smallest k (mma.m16n8k8, tf32): a narrower GEMM side leaves the
/// tensor core mostly idle.
inline constexpr long long kMinGemmChannels = 8;

/// The kernel that sums the gradients of a tensor read by `readers` > 1 later layers (autograd
/// adds them pairwise before the producer's backward): `readers - 1` reads of two and writes of one.
kernels::Kernel gradient_sum(const std::string& name, double elements, int readers, DType dtype);

/// Multiply-adds of a convolution's forward pass for one image: out pixels x out channels x
/// (in channels / groups) x kernel area.
double conv_macs_per_image(const CnnLayer& layer, const LayerGraph& graph);

}  // namespace clearfog::workload
