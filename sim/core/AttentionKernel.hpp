#pragma once
// The fused attention kernels a training stack can run, one line each. The same tiling prices
// them all (kernels/FusedAttentionTiling.hpp); what sets them apart is the share of its dtype's
// GEMM efficiency each sustains on a part, which the accelerator file gives per kernel
// (attention.<name>.forward_share, backward_share; docs/compute-model.md, "Fused attention"). A
// stack's choice is its framework profile's `attention_kernel`, or training.attention_kernel.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clearfog {

enum class AttentionKernel { Flash1, Flash2, Flash3, Cudnn };

struct AttentionKernelInfo {
  AttentionKernel kernel;
  std::string_view name;         // the spelling in YAML keys
  std::string_view description;  // one line, with the code that runs it
};

inline constexpr std::array<AttentionKernelInfo, 4> kAttentionKernels = {{
    {AttentionKernel::Flash1, "flash1",
     "FlashAttention (Dao et al. 2022): the flash-attn 1.x kernels and their Triton port (flash_attn_triton.py, "
     "llm-foundry's attn_impl: triton)"},
    {AttentionKernel::Flash2, "flash2",
     "FlashAttention-2 (Dao 2023): the flash-attn package's v2 kernels and PyTorch SDPA's flash backend; "
     "Ampere code (mma.sync) on every part from the A100 on"},
    {AttentionKernel::Flash3, "flash3",
     "FlashAttention-3 (Shah et al. 2024): Hopper's asynchronous tensor cores (wgmma) and TMA, "
     "warp-specialised; H100/H200 only"},
    {AttentionKernel::Cudnn, "cudnn",
     "cuDNN's fused flash attention: PyTorch SDPA's cudnn backend, Transformer Engine's FusedAttention"},
}};

constexpr std::string_view attention_kernel_name(AttentionKernel k) {
  for (const auto& info : kAttentionKernels)
    if (info.kernel == k) return info.name;
  return "?";
}

constexpr std::optional<AttentionKernel> parse_attention_kernel(std::string_view name) {
  for (const auto& info : kAttentionKernels)
    if (info.name == name) return info.kernel;
  return std::nullopt;
}

/// Every kernel's name, in registry order (training.attention_kernel's choices).
inline std::vector<std::string> attention_kernel_names() {
  std::vector<std::string> out;
  for (const auto& info : kAttentionKernels) out.emplace_back(info.name);
  return out;
}

/// "flash1, FlashAttention (...); flash2, ..." for the key's description.
inline std::string attention_kernel_list() {
  std::string out;
  for (const auto& info : kAttentionKernels)
    out += (out.empty() ? "" : "; ") + std::string(info.name) + ", " + std::string(info.description);
  return out;
}

}  // namespace clearfog
