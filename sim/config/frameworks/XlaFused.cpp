// A whole-graph compiler (XLA on TPUs, Poplar on IPUs): elementwise chains, the loss and the
// optimizer are fused into the compiled step.
#include "config/FrameworkRegistry.hpp"

namespace clearfog::config::frameworks {

FrameworkProfile xla_fused() {
  FrameworkProfile p;
  p.name = "xla-fused";
  p.description = "XLA/Poplar-style compiled step: every elementwise chain, the loss and the optimizer's casts "
                  "fused; collectives scheduled asynchronously";
  p.source = "OpenXLA operation fusion (xla/service/gpu/fusion docs); Graphcore Poplar/PopART graph "
             "compilation; Jouppi et al. ISCA 2023 (TPU v4: XLA fuses elementwise ops into the matmuls)";
  p.fusions = KernelFusions{.bias_gelu = true, .softmax_mask = true, .layernorm = true, .attention = false,
                            .cross_entropy = true};
  p.p2p = P2pMode::Async;
  p.ddp = DdpFlavour::Torch;
  p.grad_accumulation_fusion = true;
  // The fp32 weights are cast in the compiled graph; bf16 needs no loss scaling.
  p.optimizer = OptimizerPasses{.master_copies = false, .fp16_unscale = false};
  // One compiled executable per step: the runtime, not Python, issues its kernels (no host model).
  p.host = HostIssue{};
  return p;
}

}  // namespace clearfog::config::frameworks
