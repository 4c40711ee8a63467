#pragma once
// A framework profile: what a training software stack (Megatron-LM of a given year, PyTorch FSDP,
// DeepSpeed, an XLA/Poplar-style compiler) does on top of the hardware, as a model input. The
// scenario picks one by name (`framework:`); the registry (FrameworkRegistry.hpp) lists them, one
// file each under config/frameworks/. Equations and sources: docs/frameworks.md.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "core/AttentionKernel.hpp"
#include "core/DType.hpp"

namespace clearfog::config {

/// How pipeline stages exchange activations and gradients.
///  - async: the send runs on its own stream (a NCCL communicator of its own, as Megatron's
///    pipeline group has), the sender's compute goes on at once;
///  - async-shared: the send queues on the stream of the gradient reductions (clearfog's model
///    before framework profiles; kept as the default so earlier results stay the same);
///  - blocking: the send runs on the compute stream and the sender waits for it (Megatron-LM 2021
///    called torch.cuda.synchronize() after every exchange).
enum class P2pMode { Async, AsyncShared, Blocking };

inline constexpr std::array<P2pMode, 3> kAllP2pModes = {P2pMode::Async, P2pMode::AsyncShared, P2pMode::Blocking};

constexpr std::string_view p2p_mode_name(P2pMode m) {
  switch (m) {
    case P2pMode::Async: return "async";
    case P2pMode::AsyncShared: return "async-shared";
    case P2pMode::Blocking: return "blocking";
  }
  return "?";
}

constexpr std::optional<P2pMode> parse_p2p_mode(std::string_view name) {
  for (P2pMode m : kAllP2pModes)
    if (p2p_mode_name(m) == name) return m;
  return std::nullopt;
}

/// Data-parallel gradient reduction: torch (PyTorch DDP: each bucket reduced as soon as the last
/// micro-batch's backward has produced it) or local (Megatron's local DDP of 2021: every bucket
/// after the pipeline flush).
enum class DdpFlavour { Torch, Local };

constexpr std::string_view ddp_flavour_name(DdpFlavour d) { return d == DdpFlavour::Torch ? "torch" : "local"; }

/// Which memory-bound operator chains one kernel runs. An unfused chain costs its intermediate
/// tensors' round trips through memory and a launch per kernel (docs/frameworks.md, "Fusions").
struct KernelFusions {
  bool bias_gelu = true;     // bias add + GeLU in one kernel (Megatron --bias-gelu-fusion)
  bool softmax_mask = true;  // scale + causal mask + softmax in one kernel (Megatron's fused softmax)
  bool layernorm = true;     // layernorm in one kernel (apex FusedLayerNorm) rather than three passes
  bool attention = false;    // one FlashAttention-style kernel per pass (training.attention: fused)
  /// ... and which kernel that is (training.attention_kernel; core/AttentionKernel.hpp)
  AttentionKernel attention_kernel = AttentionKernel::Flash2;
  bool cross_entropy = false;  // the loss in the logits' dtype in one kernel instead of Megatron's fp32 passes
  // RMSNorm, the SwiGLU gate and the rotary embedding each in one kernel (Megatron's and Transformer
  // Engine's fused kernels); false: PyTorch eager ops, one kernel per op, the norm and the rotary
  // embedding in fp32 (torchtitan without torch.compile; docs/frameworks.md, "Eager pointwise ops")
  bool pointwise = true;
  // Q, K and V as one GEMM, and an MLP's gate and up projections as one (Megatron's fused weights);
  // false: one nn.Linear each, as torchtitan's and Hugging Face's Llama modules run them (three and
  // two GEMMs, and autograd adds their input gradients)
  bool projections = true;
  // CNNs: batch norm + ReLU, and batch norm + residual add + ReLU, in one cuDNN kernel each
  // (cudnnBatchNormalizationForwardTrainingEx with CUDNN_BATCHNORM_OPS_BN_ACTIVATION or
  // BN_ADD_ACTIVATION, NHWC; the ReLU's gradient from a bitmask instead of its output)
  bool batchnorm_relu = false;
};

/// The mixed-precision optimizer's passes besides the update itself.
struct OptimizerPasses {
  bool master_copies = true;  // fp32 main gradients and weights copied to and from the 16-bit model
  bool fp16_unscale = true;   // with fp16: unscale the gradients and check them for inf/NaN
  /// With master_copies: the 16-bit gradients are copied into the fp32 main gradients. Off where
  /// the gradients are summed in fp32 already (ScenarioSpec::optimizer_passes).
  bool gradient_copy = true;
};

/// The host thread that issues a rank's kernels (docs/host-time.md). Each kernel costs the host
/// `*_launch_s` before the device can run it; the host runs ahead of the device except where the
/// framework copies a device result to the host. All zero: launches are free (the device-side
/// gap between kernels is the accelerator's kernel.launch_overhead either way).
struct HostIssue {
  double forward_launch_s = 0;   // one forward (or recomputed forward, or optimizer) kernel, from Python
  double backward_launch_s = 0;  // one backward kernel, from the C++ autograd engine
  /// The passes' kernels are replayed from captured CUDA graphs: one `graph_launch_s` per op
  /// instead of a launch per kernel (Megatron-core --enable-cuda-graph; MLPerf submissions).
  bool cuda_graphs = false;
  double graph_launch_s = 0;     // host time of one cudaGraphLaunch
  /// MoE token dispatch copies the tokens per expert to the host before each forward all-to-all
  /// (the send and receive counts): the host waits for the routing kernels there.
  bool moe_dispatch_sync = false;
  [[nodiscard]] bool active() const { return forward_launch_s > 0 || backward_launch_s > 0 || graph_launch_s > 0; }
};

/// How a ZeRO-3 / FSDP stack gathers a unit's parameters (docs/parallelism.md).
struct ParameterGathering {
  /// false: one all-gather of the unit's flat parameter (FSDP's FlatParameter, FSDP2's per-module
  /// foreach all-gather). true: one all-gather per parameter tensor (DeepSpeed ZeRO-3 fetches each
  /// parameterized submodule by itself, its weight and bias coalesced; the bias stays whole).
  bool gather_per_tensor = false;
  /// Tensors with fewer elements are not partitioned and never gathered (DeepSpeed
  /// stage3_param_persistence_threshold); with gather_per_tensor only.
  double persistence_threshold = 0;
  /// FSDP1's rate limiter (limit_all_gathers=True): before a unit's all-gather the host waits
  /// (event.synchronize()) until the unit whose buffer it reuses has been freed, so the host runs
  /// at most two units ahead of the device. FSDP2 waits on the device instead.
  bool host_rate_limit = false;
  /// FSDP2 all-gathers into one buffer and then copies it out into each parameter's unsharded
  /// tensor on the compute stream (torch.split_with_sizes_copy in foreach_all_gather_copy_out),
  /// reading and writing the unit's gathered bytes before it can run. FSDP1 and DeepSpeed use the
  /// gathered buffer in place.
  bool copy_out = false;
  /// Under pipeline parallelism a stage gathers each unit's parameters once a step and keeps them,
  /// adds each micro-batch's unsharded gradients into a running sum in the reduce dtype and
  /// reduce-scatters the sum once, after its last backward. PyTorch's pipelining runs FSDP2 so
  /// (stage.py: set_reshard_after_backward(False), set_requires_gradient_sync(False) until the last
  /// backward; FSDPParam accumulates in reduce_dtype), and torchtitan's reshard_after_forward policy
  /// "default" is False with pipeline parallelism. Without it, every pass gathers and every
  /// micro-batch reduce-scatters its own gradients.
  bool pipeline_holds_unsharded = false;
};

struct FrameworkProfile {
  std::string name;         // "megatron-2021": the spelling of `framework:`
  std::string description;  // one line
  std::string source;       // where the facts come from
  KernelFusions fusions;
  P2pMode p2p = P2pMode::AsyncShared;
  DdpFlavour ddp = DdpFlavour::Torch;
  /// The flavour under ZeRO-3, where a stack reduces differently (DeepSpeed: overlap_comm defaults
  /// to true for stage 3 only); none: `ddp`.
  std::optional<DdpFlavour> ddp_zero3;
  bool grad_accumulation_fusion = true;  // weight-gradient GEMMs accumulate into the gradient buffer
  OptimizerPasses optimizer;
  double host_per_iteration_s = 0;    // host time the GPUs wait for once per iteration (data, logging)
  double host_per_micro_batch_s = 0;  // host time the GPUs wait for per micro-batch and model chunk
  HostIssue host;                     // kernel launches from the host thread
  ParameterGathering sharding;        // ZeRO-3 / FSDP parameter all-gathers
  /// The dtype data-parallel gradients are reduced in; none: the training precision (FSDP2's
  /// MixedPrecisionPolicy reduce_dtype, torchtitan's mixed_precision_reduce float32).
  std::optional<DType> gradient_reduce_dtype;
  /// bf16 gradients (bf16 or fp8 training) are summed and reduced in fp32: Megatron-LM forces
  /// accumulate_allreduce_grads_in_fp32 for bf16 (arguments.py), so its main_grad buffers and
  /// data-parallel reductions are fp32 (NeMo's bf16_mixed: grad_reduce_in_fp32=True).
  bool bf16_gradients_in_fp32 = false;
  /// ZeRO-1/2 (Megatron's distributed optimizer): the all-gather of the updated parameter shards
  /// runs behind the next step's forward, bucket by bucket, each layer waiting for its own bucket
  /// (Megatron-core --overlap-param-gather; NeMo's MegatronStrategy default). Off: after the
  /// optimizer, before the next step.
  bool overlap_param_gather = false;
  /// Time of this stack's kernels relative to the stack the kernel model was calibrated on
  /// (Megatron-LM 2022, Korthikanti et al.): 1 there. A measured figure with its source.
  double kernel_time_factor = 1;
};

}  // namespace clearfog::config
