// DeepSpeed (ZeRO and its pipeline engine) with the Megatron-DeepSpeed model code.
#include "config/FrameworkRegistry.hpp"

namespace clearfog::config::frameworks {

FrameworkProfile deepspeed() {
  FrameworkProfile p;
  p.name = "deepspeed";
  p.description = "DeepSpeed with Megatron-DeepSpeed kernels: blocking pipeline send/recv, gradient reduction "
                  "after the backward (overlap_comm: false), fp16 optimizer passes";
  p.source = "microsoft/DeepSpeed runtime/pipe/p2p.py (dist.send / dist.recv), zero config docs "
             "(overlap_comm default false), runtime/fp16 (loss scaling, fp32 master weights)";
  p.fusions = KernelFusions{.bias_gelu = true, .softmax_mask = true, .layernorm = true, .attention = false,
                            .cross_entropy = false};
  p.p2p = P2pMode::Blocking;
  p.ddp = DdpFlavour::Local;
  p.grad_accumulation_fusion = false;
  p.optimizer = OptimizerPasses{.master_copies = true, .fp16_unscale = true};
  p.host = pytorch_eager_host();  // kernels launched one by one from Python
  return p;
}

}  // namespace clearfog::config::frameworks
