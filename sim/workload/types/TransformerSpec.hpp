#pragma once
// The parameters of a decoder-only transformer workload (type: transformer): GPT-2/3 and MPT
// (learned positions, LayerNorm, GeLU MLP, tied embeddings) as well as the Llama family
// (grouped-query attention, SwiGLU, RMSNorm, rotary positions, untied embeddings, no biases).
#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "config/WorkloadSpec.hpp"

namespace clearfog::workload {

/// The MLP block: GeLU (two matrices, h -> f -> h) or a gated linear unit (three matrices: gate
/// and up h -> f each, down f -> h; Shazeer 2020), with SiLU (SwiGLU, Llama) or GeLU (GEGLU).
enum class MlpKind { Gelu, SwiGlu, GeGlu };
inline constexpr std::array<MlpKind, 3> kAllMlpKinds = {MlpKind::Gelu, MlpKind::SwiGlu, MlpKind::GeGlu};
constexpr std::string_view mlp_name(MlpKind m) {
  switch (m) {
    case MlpKind::Gelu: return "gelu";
    case MlpKind::SwiGlu: return "swiglu";
    case MlpKind::GeGlu: return "geglu";
  }
  return "?";
}
constexpr bool gated(MlpKind m) { return m != MlpKind::Gelu; }

/// LayerNorm (mean and variance, scale and shift: 2h parameters) or RMSNorm (Zhang & Sennrich
/// 2019: root mean square, scale only: h parameters).
enum class NormKind { LayerNorm, RmsNorm };
inline constexpr std::array<NormKind, 2> kAllNormKinds = {NormKind::LayerNorm, NormKind::RmsNorm};
constexpr std::string_view norm_name(NormKind n) { return n == NormKind::LayerNorm ? "layernorm" : "rmsnorm"; }

/// Position information: a learned s x h table added to the token embedding (GPT), rotary
/// embeddings applied to Q and K in every layer (Su et al. 2021; Llama), ALiBi biases added to the
/// attention scores (Press et al. 2022), or none.
enum class PositionKind { Learned, Rotary, Alibi, None };
inline constexpr std::array<PositionKind, 4> kAllPositionKinds = {PositionKind::Learned, PositionKind::Rotary,
                                                                  PositionKind::Alibi, PositionKind::None};
constexpr std::string_view position_name(PositionKind p) {
  switch (p) {
    case PositionKind::Learned: return "learned";
    case PositionKind::Rotary: return "rotary";
    case PositionKind::Alibi: return "alibi";
    case PositionKind::None: return "none";
  }
  return "?";
}

/// Layers whose MLP or attention differs from the file's defaults (a model mixing layer types).
struct LayerOverride {
  int first = 0;                    // first layer (0-based)
  int count = 1;                    // consecutive layers
  std::optional<int> ffn_hidden;
  std::optional<MlpKind> mlp;
  std::optional<int> kv_heads;
};

/// The shape of one layer after overrides.
struct LayerShape {
  int ffn_hidden = 0;
  MlpKind mlp = MlpKind::Gelu;
  int kv_heads = 0;
  auto operator<=>(const LayerShape&) const = default;
};

struct TransformerSpec : config::WorkloadParams {
  int layers = 0;
  int hidden = 0;         // h (d_model)
  int heads = 0;          // a: query heads
  int kv_heads = 0;       // key/value heads (grouped-query attention); 0 = heads
  int head_dim = 0;       // d; 0 = hidden / heads
  int ffn_hidden = 0;     // f; 0 = 4 * hidden
  int seq_length = 0;     // s
  int vocab_size = 0;     // V
  MlpKind mlp = MlpKind::Gelu;
  NormKind norm = NormKind::LayerNorm;
  PositionKind position = PositionKind::Learned;
  bool tie_embeddings = true;  // the logits layer reuses the token embedding
  bool bias = true;            // linear layers (and LayerNorm) carry biases
  bool dropout = true;         // attention and hidden dropout (Megatron's GPT: 0.1 each)
  bool causal = true;          // tokens attend to earlier tokens only (decoders); false: to all (BERT)
  std::vector<LayerOverride> overrides;
  // Mixture of Experts (docs/moe.md): layers from `first_dense_layers` on replace the MLP with
  // `experts` routed experts (each a `mlp`-kind MLP of `expert_ffn_hidden`), top_k of which each
  // token visits, plus `shared_experts` experts every token visits. experts = 0: a dense model.
  int experts = 0;
  int top_k = 1;
  int expert_ffn_hidden = 0;        // 0 = ffn_hidden
  int shared_experts = 0;
  double capacity_factor = 0;       // tokens an expert takes, x its balanced share; 0: dropless
  int first_dense_layers = 0;

  // Multi-head latent attention (DeepSeek-V2/V3; docs/moe.md): kv_lora_rank > 0 replaces the qkv
  // projection by low-rank latents; head_dim is then unused.
  int q_lora_rank = 0;       // 0: queries projected from h directly
  int kv_lora_rank = 0;      // 0: standard attention
  int qk_nope_head_dim = 0;  // per-head query/key dimensions without rotary
  int qk_rope_head_dim = 0;  // decoupled rotary dimensions (one key shared by all heads)
  int v_head_dim = 0;        // per-head value dimensions

  [[nodiscard]] bool mla() const { return kv_lora_rank > 0; }
  [[nodiscard]] bool moe_layer(int l) const { return experts > 0 && l >= first_dense_layers; }
  [[nodiscard]] int resolved_expert_ffn_hidden() const { return expert_ffn_hidden > 0 ? expert_ffn_hidden : resolved_ffn_hidden(); }
  [[nodiscard]] int resolved_kv_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  [[nodiscard]] int resolved_head_dim() const { return head_dim > 0 ? head_dim : (heads > 0 ? hidden / heads : 0); }
  [[nodiscard]] int resolved_ffn_hidden() const { return ffn_hidden > 0 ? ffn_hidden : 4 * hidden; }
  /// Layer `l`'s shape: the defaults with the last override covering `l` applied.
  [[nodiscard]] LayerShape layer(int l) const;
};

}  // namespace clearfog::workload
