// Megatron-LM as Narayanan et al. ran SC21 Table 1 (arXiv:2104.04473; examples/sc21/run_table_1.sh
// on the NGC PyTorch 20.12 container).
#include "config/FrameworkRegistry.hpp"

namespace clearfog::config::frameworks {

FrameworkProfile megatron_2021() {
  FrameworkProfile p;
  p.name = "megatron-2021";
  p.description = "Megatron-LM 2021 (SC21): blocking pipeline exchanges, local DDP, no gradient-accumulation "
                  "fusion, the 2020.12 container's kernels";
  p.source = "Narayanan et al. SC21 (arXiv:2104.04473); NVIDIA/Megatron-LM 2021 "
             "(megatron/p2p_communication.py, megatron/model/distributed.py, examples/sc21)";
  // The same fused kernels as 2022: bias+GeLU (torch.jit), scaled masked softmax (CUDA extension),
  // apex's fused layernorm; attention unfused; cross-entropy in fp32.
  p.fusions = KernelFusions{.bias_gelu = true, .softmax_mask = true, .layernorm = true, .attention = false,
                            .cross_entropy = false};
  // p2p_communication.py (2021): torch.distributed.batch_isend_irecv, then torch.cuda.synchronize()
  // "to protect against race condition when using batch_isend_irecv()".
  p.p2p = P2pMode::Blocking;
  // --DDP-impl local (Megatron's default): all-reduce of the contiguous gradient buffer after the
  // backward. run_table_1.sh passes --DDP-impl torch for the rows without pipelining (the sweep
  // sets training.overlap_grad_reduce per row).
  p.ddp = DdpFlavour::Local;
  p.grad_accumulation_fusion = false;  // --gradient-accumulation-fusion appeared in 2022
  p.optimizer = OptimizerPasses{.master_copies = true, .fp16_unscale = true};
  // Per-layer kernel time of the 20.12 container relative to the 2022 stack (docs/frameworks.md,
  // "Kernel time"): calibrated on the 18.4B row of SC21 Table 1, whose layer is Korthikanti's
  // 22B layer but for 48 heads and micro-batch 8; checked on the 1.7B, 7.5B, 145.6B and 1T rows.
  p.kernel_time_factor = 1.10;
  p.host = pytorch_eager_host();  // kernels launched one by one from Python
  return p;
}

}  // namespace clearfog::config::frameworks
