// Megatron-core as of 2024 (NVIDIA/Megatron-LM core_r0.5 to r0.9) with Transformer Engine.
#include "config/FrameworkRegistry.hpp"

namespace clearfog::config::frameworks {

FrameworkProfile megatron_core_2024() {
  FrameworkProfile p;
  p.name = "megatron-core-2024";
  p.description = "Megatron-core 2024: fused attention (cuDNN, through Transformer Engine), asynchronous pipeline exchanges on their own "
                  "stream, gradient reduction overlapped with the backward";
  p.source = "NVIDIA/Megatron-LM megatron/core (pipeline_parallel/p2p_communication.py, "
             "distributed/distributed_data_parallel.py: --overlap-grad-reduce), Transformer Engine DotProductAttention";
  p.fusions = KernelFusions{.bias_gelu = true, .softmax_mask = true, .layernorm = true, .attention = true,
                            .cross_entropy = false};
  // Transformer Engine's DotProductAttention runs its FusedAttention backend, cuDNN's fused flash
  // attention, on Hopper and Blackwell (NeMo's containers enable it; ASSUMED for every part).
  p.fusions.attention_kernel = AttentionKernel::Cudnn;
  p.p2p = P2pMode::Async;  // the pipeline group's own NCCL communicator, no synchronize
  p.ddp = DdpFlavour::Torch;
  p.grad_accumulation_fusion = true;
  p.optimizer = OptimizerPasses{.master_copies = true, .fp16_unscale = true};
  // bf16: fp32 main_grad buffers, reduced in fp32 (arguments.py forces
  // accumulate_allreduce_grads_in_fp32), which the optimizer reads without a copy.
  p.bf16_gradients_in_fp32 = true;
  // Distributed optimizer: the updated shards' all-gather behind the next forward
  // (megatron/core/distributed: overlap_param_gather; NeMo MegatronStrategy's DDP config default).
  p.overlap_param_gather = true;
  p.host = pytorch_eager_host();  // kernels launched one by one from Python
  return p;
}

}  // namespace clearfog::config::frameworks
