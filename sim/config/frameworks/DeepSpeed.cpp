// DeepSpeed (ZeRO and its pipeline engine) with the Megatron-DeepSpeed model code.
#include "config/FrameworkRegistry.hpp"

namespace clearfog::config::frameworks {

FrameworkProfile deepspeed() {
  FrameworkProfile p;
  p.name = "deepspeed";
  p.description = "DeepSpeed with Megatron-DeepSpeed kernels: blocking pipeline send/recv, gradient reduction "
                  "after the backward (overlap_comm: false; true under ZeRO-3, as its default), ZeRO-3 fetching "
                  "each submodule's parameters, fp16 optimizer passes";
  p.source = "microsoft/DeepSpeed runtime/pipe/p2p.py (dist.send / dist.recv), zero config docs "
             "(overlap_comm default false), runtime/fp16 (loss scaling, fp32 master weights)";
  p.fusions = KernelFusions{.bias_gelu = true, .softmax_mask = true, .layernorm = true, .attention = false,
                            .cross_entropy = false};
  p.p2p = P2pMode::Blocking;
  p.ddp = DdpFlavour::Local;
  // zero config: overlap_comm None becomes True for stage 3 (the reduce-scatters overlap the backward).
  p.ddp_zero3 = DdpFlavour::Torch;
  p.grad_accumulation_fusion = false;
  p.optimizer = OptimizerPasses{.master_copies = true, .fp16_unscale = true};
  p.host = pytorch_eager_host();
  // ZeRO-3's PartitionedParameterCoordinator fetches each submodule's parameters as it runs
  // (fetch_sub_module, all_gather_coalesced), except those below stage3_param_persistence_threshold
  // (default 1e5 elements), which stay whole (deepspeed/runtime/zero/config.py).
  p.sharding = ParameterGathering{.gather_per_tensor = true, .persistence_threshold = 1e5};  // kernels launched one by one from Python
  return p;
}

}  // namespace clearfog::config::frameworks
