// PyTorch FSDP as mosaicml/llm-foundry trains MPT (FULL_SHARD, mixed_precision PURE, triton
// FlashAttention): the stack of shared/reference/mpt_fsdp_a100_40gb.csv.
#include "config/FrameworkRegistry.hpp"

namespace clearfog::config::frameworks {

FrameworkProfile pytorch_fsdp() {
  FrameworkProfile p;
  p.name = "pytorch-fsdp";
  p.description = "PyTorch FSDP (llm-foundry): flash attention, autograd gradient accumulation, the optimizer "
                  "on the fp32 flat shards without master copies";
  p.source = "PyTorch FullyShardedDataParallel docs (MixedPrecision: param_dtype bf16, fp32 sharded flat "
             "parameters); mosaicml/llm-foundry README and yamls (attn_impl: triton); mosaicml/examples#251 (loss_fn "
             "fused_crossentropy, carried into llm-foundry)";
  // The loss: llm-foundry's loss_fn defaults to fused_crossentropy, flash-attn's CrossEntropyLoss
  // (mosaicml/examples#251, carried into llm-foundry): one kernel on the bf16 logits, no fp32 passes
  // and no fp32 gradient of the logits beside them.
  p.fusions = KernelFusions{.bias_gelu = true, .softmax_mask = true, .layernorm = true, .attention = true,
                            .cross_entropy = true};
  // llm-foundry's attn_impl: triton is flash-attn 1.0.5's Triton kernel (flash_attn_triton.py, vendored
  // into llmfoundry/models/layers until v0.7.0): FlashAttention v1's algorithm and, by its author,
  // about its speed (HazyResearch/flash-attention#119).
  p.fusions.attention_kernel = AttentionKernel::Flash1;
  p.p2p = P2pMode::Async;
  p.ddp = DdpFlavour::Torch;  // reduce-scatters overlap the backward (backward_prefetch)
  p.grad_accumulation_fusion = false;  // autograd adds into .grad
  // FSDP keeps the fp32 flat parameters sharded and casts them to bf16 when it gathers them: the
  // optimizer updates the fp32 shard in place, with no copy passes; bf16 needs no loss scaling.
  p.optimizer = OptimizerPasses{.master_copies = false, .fp16_unscale = false};
  p.host = pytorch_eager_host();
  // FSDP1 (FullyShardedDataParallel) defaults: limit_all_gathers=True, whose _FreeEventQueue lets
  // two all-gathers be in flight and synchronizes the host on the oldest free event.
  p.sharding.host_rate_limit = true;  // kernels launched one by one from Python
  return p;
}

}  // namespace clearfog::config::frameworks
