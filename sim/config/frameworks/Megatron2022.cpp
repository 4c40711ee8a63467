// Megatron-LM as Korthikanti et al. ran it in 2022 ("Reducing Activation Recomputation in Large
// Transformer Models", arXiv:2205.05198): the stack clearfog's kernel model is calibrated on
// (docs/compute-model.md), and the profile of every scenario without `framework:`.
#include "config/FrameworkRegistry.hpp"

namespace clearfog::config::frameworks {

FrameworkProfile megatron_2022() {
  FrameworkProfile p;
  p.name = "megatron-2022";
  p.description = "Megatron-LM 2022 (Korthikanti et al.): fused bias+GeLU, softmax and layernorm, unfused "
                  "attention, fp32 cross-entropy, gradient-accumulation fusion; the default";
  p.source = "Korthikanti et al. 2022 (arXiv:2205.05198) Sec. 5; NVIDIA/Megatron-LM v3.0 "
             "(--bias-gelu-fusion, --masked-softmax-fusion, --gradient-accumulation-fusion)";
  // Fusions: megatron/model/fused_bias_gelu.py, fused_softmax.py, fused_layer_norm.py; attention
  // as separate QK^T, softmax, dropout, PV kernels; the vocabulary-parallel cross-entropy on
  // output.float() (mpu/cross_entropy.py).
  p.fusions = KernelFusions{.bias_gelu = true, .softmax_mask = true, .layernorm = true, .attention = false,
                            .cross_entropy = false};
  // clearfog's model before profiles: pipeline sends queue with the gradient reductions on one
  // stream. Kept so that results without `framework:` stay what they were (docs/frameworks.md).
  p.p2p = P2pMode::AsyncShared;
  p.ddp = DdpFlavour::Torch;
  p.grad_accumulation_fusion = true;
  p.optimizer = OptimizerPasses{.master_copies = true, .fp16_unscale = true};  // Float16OptimizerWithFloat16Params
  // bf16: fp32 main_grad buffers, reduced in fp32 (arguments.py forces
  // accumulate_allreduce_grads_in_fp32), which the optimizer reads without a copy.
  p.bf16_gradients_in_fp32 = true;
  p.host = pytorch_eager_host();  // kernels launched one by one from Python
  return p;
}

}  // namespace clearfog::config::frameworks
