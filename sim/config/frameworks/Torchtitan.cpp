// torchtitan (pytorch/torchtitan) as its performance tables ran it: FSDP2 (fully_shard per
// transformer block), bf16 parameters with fp32 gradient reduction, eager PyTorch without
// torch.compile: the stack of shared/reference/torchtitan_h100.md.
#include "config/FrameworkRegistry.hpp"

namespace clearfog::config::frameworks {

FrameworkProfile torchtitan() {
  FrameworkProfile p;
  p.name = "torchtitan";
  p.description = "torchtitan, eager (no torch.compile): FSDP2, SDPA flash attention, RMSNorm, SwiGLU and rotary "
                  "embedding as eager ops (norm and rotary in fp32), fp32 loss, gradients reduce-scattered in fp32";
  p.source = "pytorch/torchtitan models/llama/model.py (RMSNorm _norm(x.float()).type_as(x) * weight, apply_rotary_emb "
             "via view_as_complex(x.float()), Attention wq, wk, wv separate Linears, FeedForward w2(F.silu(w1(x)) * w3(x)), cross_entropy on pred.float()); "
             "config mixed_precision_param bfloat16, mixed_precision_reduce float32; FSDP2 MixedPrecisionPolicy";
  p.fusions = KernelFusions{.bias_gelu = true, .softmax_mask = true, .layernorm = true, .attention = true,
                            .cross_entropy = false, .pointwise = false, .projections = false};
  // F.scaled_dot_product_attention(is_causal=True): PyTorch 2.5.1 to 2.10 run its flash backend,
  // FlashAttention-2's kernels, on the A100 and the H100 alike (pytorch/pytorch#138522 made cuDNN
  // opt-in; #142132 measured the 2.6 nightly's SDPA at 329 TFLOP/s on an H100 where cuDNN ran 631).
  p.fusions.attention_kernel = AttentionKernel::Flash2;
  p.p2p = P2pMode::Async;
  p.ddp = DdpFlavour::Torch;           // each block's reduce-scatter as its backward ends
  p.grad_accumulation_fusion = false;  // autograd adds into .grad
  // fully_shard keeps fp32 sharded parameters, casts them to bf16 when gathering and updates the
  // fp32 shard in place: no copy passes, no loss scaling in bf16.
  p.optimizer = OptimizerPasses{.master_copies = false, .fp16_unscale = false};
  p.gradient_reduce_dtype = DType::fp32;  // MixedPrecisionPolicy(reduce_dtype=float32)
  // Under PP: parameters gathered once a step, gradients summed unsharded in fp32 and reduced
  // once (torchtitan parallelize: fsdp_reshard_after_forward "default"; torch pipelining stage.py).
  p.sharding.pipeline_holds_unsharded = true;
  p.sharding.copy_out = true;  // FSDP2's all-gather copy-out (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py)
  p.host = pytorch_eager_host();
  return p;
}

}  // namespace clearfog::config::frameworks
