// The transformer workload type's configuration: its keys, its parameters and its rules. The
// blocks it describes are in TransformerBlocks.cpp.
#include <fmt/format.h>

#include <numeric>

#include "config/CheckSupport.hpp"
#include "config/KeyTableParts.hpp"
#include "config/ScaleLimits.hpp"
#include "workload/types/TransformerType.hpp"

namespace clearfog::workload {

using config::Condition;
using config::ConfigDocument;
using config::ConfigValue;
using config::Constraint;
using config::KeySpec;
using config::KeyType;
using config::Presence;

namespace {

template <typename Enum, std::size_t N, typename NameOf>
Enum parse_choice(const std::array<Enum, N>& all, NameOf name_of, const std::string& text) {
  for (Enum e : all)
    if (name_of(e) == text) return e;
  // The reader checked the value against the same choices.
  throw std::logic_error("transformer: unknown choice " + text);
}

std::int64_t int_or(const ConfigDocument& doc, std::string_view key, std::int64_t fallback) {
  const ConfigValue* v = doc.find(key);
  return v && !v->is_derived() ? v->as_integer() : fallback;
}

/// The KV heads of every layer: the default and each override's.
std::vector<std::int64_t> kv_head_values(const ConfigDocument& doc) {
  std::vector<std::int64_t> values = {int_or(doc, "kv_heads", int_or(doc, "heads", 0))};
  if (const ConfigValue* list = doc.find("overrides"))
    for (const ConfigValue& o : list->as_list())
      if (const ConfigValue* kv = o.field("kv_heads")) values.push_back(kv->as_integer());
  return values;
}

/// The MLP hidden sizes of every layer: the default and each override's.
std::vector<std::int64_t> ffn_values(const ConfigDocument& doc) {
  std::vector<std::int64_t> values = {int_or(doc, "ffn_hidden", 4 * int_or(doc, "hidden", 0))};
  if (const ConfigValue* list = doc.find("overrides"))
    for (const ConfigValue& o : list->as_list())
      if (const ConfigValue* f = o.field("ffn_hidden")) values.push_back(f->as_integer());
  return values;
}

/// Expert parallelism against the workload: ep must divide the experts; without experts it must
/// be 1; with tensor parallelism the MoE layers need sequence parallelism (Megatron-Core's token
/// dispatcher takes the sequence shard of each tensor rank).
void check_experts(const ConfigDocument& scenario, const ConfigDocument& workload, std::vector<Diagnostic>& out) {
  const std::int64_t ep = int_or(scenario, "parallelism.ep", 1), tp = int_or(scenario, "parallelism.tp", 1);
  const std::int64_t experts = int_or(workload, "experts", 0);
  if (experts == 0 && ep > 1)
    config::report(scenario, "parallelism.ep",
                   fmt::format("ep {} splits experts, but the workload has none (experts: 0); allowed: 1", ep), out);
  if (experts > 0 && experts % ep != 0)
    config::report(scenario, "parallelism.ep",
                   fmt::format("ep {} must divide the workload's experts {} (each rank holds experts/ep of them)", ep,
                               experts),
                   out);
  if (ep > 1 && int_or(scenario, "parallelism.zero_stage", 0) >= 3)
    config::report(scenario, "parallelism.zero_stage",
                   fmt::format("ZeRO-3 with expert parallelism (ep {}) is not modelled: the expert parameters' "
                               "gathers over the expert-data group are not planned; allowed with ep > 1: 0, 1, 2",
                               ep),
                   out);
  if (experts > 0) {
    const std::int64_t f = int_or(workload, "expert_ffn_hidden", int_or(workload, "ffn_hidden", 4 * int_or(workload, "hidden", 0)));
    if (f > 0 && f % tp != 0)
      config::report(scenario, "parallelism.tp",
                     fmt::format("tp {} must divide the workload's expert_ffn_hidden {} (experts are sharded like the "
                                 "MLP)",
                                 tp, f),
                     out);
    const ConfigValue* sp = scenario.find("parallelism.sequence_parallel");
    if (tp > 1 && !(sp && sp->as_bool()))
      config::report(scenario, "parallelism.tp",
                     fmt::format("a MoE model with tp {} needs parallelism.sequence_parallel: true (the token "
                                 "dispatcher routes each tensor rank's sequence shard)",
                                 tp),
                     out);
  }
}

/// Per-op checkpointing as modelled: dense layers. A MoE layer's grouped expert GEMMs are not
/// aten.mm and would all re-run; its routing and exchange under the policy are not planned.
void check_op_recompute(const ConfigDocument& scenario, const ConfigDocument& workload, std::vector<Diagnostic>& out) {
  const ConfigValue* r = scenario.find("training.recompute");
  if (!r || r->as_string() != config::recompute_name(config::Recompute::Op)) return;
  if (int_or(workload, "experts", 0) > 0)
    config::report(scenario, "training.recompute",
                   "op (per-op selective checkpointing) is modelled for dense layers; a Mixture of Experts workload "
                   "allows none, selective or full",
                   out);
}

}  // namespace

std::string_view TransformerType::description() const {
  return "a decoder-only transformer language model (GPT, MPT, Llama): embedding, `layers` identical layers of "
         "attention and MLP (unless `overrides` changes some), final norm, logits and cross-entropy.";
}

std::vector<KeySpec> TransformerType::keys() const {
  using config::names;
  return {
      {.path = "layers", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "layers",
       .description = "Transformer layers."},
      {.path = "hidden", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "elements",
       .description = "Hidden size (model width, d_model)."},
      {.path = "heads", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "heads",
       .description = "Attention (query) heads per layer."},
      {.path = "kv_heads", .type = KeyType::Integer, .presence = Presence::Derived, .default_text = "heads",
       .constraint = Constraint::AtLeastOne, .counts = "heads",
       .description = "Key/value heads: fewer than `heads` is grouped-query attention (1: multi-query); must "
                      "divide heads."},
      {.path = "head_dim", .type = KeyType::Integer, .presence = Presence::Derived, .default_text = "hidden/heads",
       .constraint = Constraint::AtLeastOne, .counts = "elements",
       .description = "Elements per head; the attention width is heads*head_dim (Qwen3: 32 x 128 at hidden 2048)."},
      {.path = "ffn_hidden", .type = KeyType::Integer, .presence = Presence::Derived, .default_text = "4*hidden",
       .constraint = Constraint::AtLeastOne, .counts = "elements",
       .description = "Inner size of the MLP block (of each of its gate and up matrices when gated)."},
      {.path = "seq_length", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "tokens",
       .description = "Tokens per sequence."},
      {.path = "vocab_size", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "tokens",
       .description = "Vocabulary size (after padding)."},
      {.path = "mlp", .type = KeyType::Enum, .choices = names(kAllMlpKinds, mlp_name),
       .presence = Presence::Defaulted, .default_text = "gelu",
       .description = "MLP: gelu (two matrices), swiglu or geglu (gated: three matrices, Shazeer 2020)."},
      {.path = "norm", .type = KeyType::Enum, .choices = names(kAllNormKinds, norm_name),
       .presence = Presence::Defaulted, .default_text = "layernorm",
       .description = "Normalization: layernorm (scale and shift) or rmsnorm (scale only)."},
      {.path = "position", .type = KeyType::Enum, .choices = names(kAllPositionKinds, position_name),
       .presence = Presence::Defaulted, .default_text = "learned",
       .description = "Positions: learned (an s x h table), rotary (applied to Q and K in every layer), alibi "
                      "(biases on the attention scores) or none."},
      {.path = "tie_embeddings", .type = KeyType::Bool, .presence = Presence::Defaulted, .default_text = "true",
       .description = "The logits layer reuses the token embedding (GPT); false gives it its own V x h matrix "
                      "(Llama)."},
      {.path = "bias", .type = KeyType::Bool, .presence = Presence::Defaulted, .default_text = "true",
       .description = "Linear layers and layernorms have biases (false for Llama and MPT)."},
      {.path = "dropout", .type = KeyType::Bool, .presence = Presence::Defaulted, .default_text = "true",
       .description = "Attention and hidden dropout (masks kept for backward); false for Llama-style training."},
      {.path = "causal", .type = KeyType::Bool, .presence = Presence::Defaulted, .default_text = "true",
       .description = "Each token attends to the tokens before it only (decoder language models): a fused "
                      "attention kernel skips the key blocks the causal mask hides entirely, about half its "
                      "work (docs/compute-model.md). false: every token attends to every other (BERT's "
                      "encoder)."},
      {.path = "kv_lora_rank", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "0",
       .constraint = Constraint::NonNegative, .counts = "elements",
       .description = "Multi-head latent attention (DeepSeek-V2/V3, docs/moe.md): keys and values through a "
                      "latent of this size (DeepSeek-V3: 512); 0: standard attention. Needs qk_nope_head_dim, "
                      "qk_rope_head_dim and v_head_dim; head_dim and kv_heads are then unused."},
      {.path = "q_lora_rank", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "0",
       .constraint = Constraint::NonNegative, .counts = "elements",
       .description = "Latent size of the queries (DeepSeek-V3: 1536); 0: queries projected from hidden directly.",
       .only_with = {Condition::greater("kv_lora_rank", 0)}},
      {.path = "qk_nope_head_dim", .type = KeyType::Integer, .presence = Presence::Optional,
       .constraint = Constraint::AtLeastOne, .counts = "elements",
       .description = "Per-head query/key dimensions without rotary (DeepSeek-V3: 128).",
       .only_with = {Condition::greater("kv_lora_rank", 0)}},
      {.path = "qk_rope_head_dim", .type = KeyType::Integer, .presence = Presence::Optional,
       .constraint = Constraint::AtLeastOne, .counts = "elements",
       .description = "Decoupled rotary dimensions per query head, one rotary key shared by the heads "
                      "(DeepSeek-V3: 64).",
       .only_with = {Condition::greater("kv_lora_rank", 0)}},
      {.path = "v_head_dim", .type = KeyType::Integer, .presence = Presence::Optional,
       .constraint = Constraint::AtLeastOne, .counts = "elements",
       .description = "Per-head value dimensions (DeepSeek-V3: 128).",
       .only_with = {Condition::greater("kv_lora_rank", 0)}},
      {.path = "experts", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "0",
       .constraint = Constraint::NonNegative, .counts = "experts",
       .description = "Routed experts per MoE layer (Mixture of Experts, docs/moe.md); 0: a dense model."},
      {.path = "top_k", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "1",
       .constraint = Constraint::AtLeastOne, .counts = "experts",
       .description = "Routed experts each token visits (Mixtral 2, Qwen3 and DeepSeek-V3 8).",
       .only_with = {Condition::greater("experts", 0)}},
      {.path = "expert_ffn_hidden", .type = KeyType::Integer, .presence = Presence::Derived,
       .default_text = "ffn_hidden", .constraint = Constraint::AtLeastOne, .counts = "elements",
       .description = "Inner size of each expert's MLP (of the kind `mlp`).",
       .only_with = {Condition::greater("experts", 0)}},
      {.path = "shared_experts", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "0",
       .constraint = Constraint::NonNegative, .counts = "experts",
       .description = "Experts every token visits besides its top_k (DeepSeek-V3: 1), run as one dense MLP of "
                      "shared_experts x expert_ffn_hidden.",
       .only_with = {Condition::greater("experts", 0)}},
      {.path = "capacity_factor", .type = KeyType::Number, .presence = Presence::Optional, .constraint = Constraint::Positive,
       .description = "Token dropping: an expert takes at most capacity_factor x its balanced share of the token "
                      "slots and drops the rest (GShard); absent: dropless.",
       .only_with = {Condition::greater("experts", 0)}},
      {.path = "first_dense_layers", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "0",
       .constraint = Constraint::NonNegative, .counts = "layers",
       .description = "Leading layers that keep the dense MLP (DeepSeek-V3: 3).",
       .only_with = {Condition::greater("experts", 0)}},
      {.path = "overrides", .type = KeyType::Record, .presence = Presence::Optional,
       .description = "Layers that differ from the defaults above, e.g. [{first: 0, count: 3, ffn_hidden: 18432}]; "
                      "a later entry wins where two cover a layer.",
       .list = true,
       .fields = {{.path = "first", .type = KeyType::Integer, .constraint = Constraint::NonNegative,
                   .counts = "layer", .description = "First layer it applies to (0-based)."},
                  {.path = "count", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "1",
                   .constraint = Constraint::AtLeastOne, .counts = "layers", .description = "Consecutive layers."},
                  {.path = "ffn_hidden", .type = KeyType::Integer, .presence = Presence::Optional,
                   .constraint = Constraint::AtLeastOne, .counts = "elements", .description = "MLP inner size."},
                  {.path = "mlp", .type = KeyType::Enum, .choices = names(kAllMlpKinds, mlp_name),
                   .presence = Presence::Optional, .description = "MLP kind."},
                  {.path = "kv_heads", .type = KeyType::Integer, .presence = Presence::Optional,
                   .constraint = Constraint::AtLeastOne, .counts = "heads", .description = "Key/value heads."}}},
  };
}

std::shared_ptr<const config::WorkloadParams> TransformerType::build(const ConfigDocument& doc) const {
  auto spec = std::make_shared<TransformerSpec>();
  spec->layers = doc.get_int("layers");
  spec->hidden = doc.get_int("hidden");
  spec->heads = doc.get_int("heads");
  // Derived keys take their documented defaults here, so that a loaded spec states every size.
  spec->kv_heads = static_cast<int>(int_or(doc, "kv_heads", spec->heads));
  spec->head_dim = static_cast<int>(int_or(doc, "head_dim", spec->hidden / spec->heads));
  spec->ffn_hidden = static_cast<int>(int_or(doc, "ffn_hidden", 4LL * spec->hidden));
  spec->seq_length = doc.get_int("seq_length");
  spec->vocab_size = doc.get_int("vocab_size");
  spec->mlp = parse_choice(kAllMlpKinds, mlp_name, doc.get_string("mlp"));
  spec->norm = parse_choice(kAllNormKinds, norm_name, doc.get_string("norm"));
  spec->position = parse_choice(kAllPositionKinds, position_name, doc.get_string("position"));
  spec->tie_embeddings = doc.get_bool("tie_embeddings");
  spec->bias = doc.get_bool("bias");
  spec->dropout = doc.get_bool("dropout");
  spec->causal = doc.get_bool("causal");
  spec->kv_lora_rank = static_cast<int>(doc.get_int("kv_lora_rank"));
  if (spec->kv_lora_rank > 0) {
    spec->q_lora_rank = static_cast<int>(doc.get_int("q_lora_rank"));
    spec->qk_nope_head_dim = static_cast<int>(doc.get_int("qk_nope_head_dim"));
    spec->qk_rope_head_dim = static_cast<int>(doc.get_int("qk_rope_head_dim"));
    spec->v_head_dim = static_cast<int>(doc.get_int("v_head_dim"));
  }
  spec->experts = static_cast<int>(doc.get_int("experts"));
  if (spec->experts > 0) {
    spec->top_k = static_cast<int>(doc.get_int("top_k"));
    spec->expert_ffn_hidden = static_cast<int>(int_or(doc, "expert_ffn_hidden", spec->ffn_hidden));
    spec->shared_experts = static_cast<int>(doc.get_int("shared_experts"));
    if (const ConfigValue* c = doc.find("capacity_factor")) spec->capacity_factor = c->numeric();
    spec->first_dense_layers = static_cast<int>(doc.get_int("first_dense_layers"));
  }
  if (const ConfigValue* list = doc.find("overrides")) {
    for (const ConfigValue& o : list->as_list()) {
      LayerOverride lo;
      lo.first = static_cast<int>(o.field("first")->as_integer());
      lo.count = static_cast<int>(o.field("count")->as_integer());
      if (const ConfigValue* f = o.field("ffn_hidden")) lo.ffn_hidden = static_cast<int>(f->as_integer());
      if (const ConfigValue* m = o.field("mlp")) lo.mlp = parse_choice(kAllMlpKinds, mlp_name, m->as_string());
      if (const ConfigValue* kv = o.field("kv_heads")) lo.kv_heads = static_cast<int>(kv->as_integer());
      spec->overrides.push_back(lo);
    }
  }
  return spec;
}

void TransformerType::check(const ConfigDocument& doc, std::vector<Diagnostic>& out) const {
  const std::int64_t hidden = int_or(doc, "hidden", 0), heads = int_or(doc, "heads", 0);
  const std::int64_t layers = int_or(doc, "layers", 0);
  if (hidden > 0 && heads > 0 && !config::used(doc, "head_dim") && hidden % heads != 0)
    config::report(doc, "heads",
                   fmt::format("hidden {} must be divisible by heads {} (each head gets hidden/heads elements), or "
                               "give head_dim",
                               hidden, heads),
                   out);
  // The attention width heads*head_dim enters 64-bit products (micro_batch x seq x width) as
  // hidden does: the same limit (ScaleLimits).
  const std::int64_t max_width = config::find_key_limit(config::DocumentKind::Workload, "hidden")->max;
  if (const ConfigValue* d = config::used(doc, "head_dim"); d && heads > 0 && heads * d->as_integer() > max_width)
    config::report_at(*d,
                      fmt::format("heads x head_dim = {} x {} = {} is too wide: at most {} elements, as hidden",
                                  heads, d->as_integer(), heads * d->as_integer(), max_width),
                      out);
  if (heads > 0)
    for (const std::int64_t kv : kv_head_values(doc))
      if (kv > heads || heads % kv != 0) {
        config::report(doc, "kv_heads",
                       fmt::format("kv_heads {} must divide heads {} (each key/value head serves heads/kv_heads "
                                   "query heads)",
                                   kv, heads),
                       out);
        break;
      }
  if (int_or(doc, "kv_lora_rank", 0) > 0)
    for (const char* key : {"qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"})
      if (!doc.find(key))
        config::report(doc, "kv_lora_rank",
                       fmt::format("latent attention (kv_lora_rank > 0) needs {}; give qk_nope_head_dim, "
                                   "qk_rope_head_dim and v_head_dim",
                                   key),
                       out);
  const std::int64_t experts = int_or(doc, "experts", 0);
  if (experts > 0) {
    if (const std::int64_t k = int_or(doc, "top_k", 1); k > experts)
      config::report(doc, "top_k",
                     fmt::format("top_k {} must be at most experts {} (a token visits top_k different experts)", k,
                                 experts),
                     out);
    if (const std::int64_t dense = int_or(doc, "first_dense_layers", 0); layers > 0 && dense >= layers)
      config::report(doc, "first_dense_layers",
                     fmt::format("first_dense_layers {} leaves no MoE layer in a model of {} layers (at most {})",
                                 dense, layers, layers - 1),
                     out);
  }
  if (const ConfigValue* list = doc.find("overrides"); list && layers > 0)
    for (const ConfigValue& o : list->as_list()) {
      const std::int64_t first = o.field("first")->as_integer(), count = o.field("count")->as_integer();
      if (first + count > layers)
        config::report_at(o, fmt::format("covers layers {} to {}, but the model has layers 0 to {}", first,
                                         first + count - 1, layers - 1),
                          out);
    }
}

void TransformerType::check_scenario(const ConfigDocument& scenario, const ConfigDocument& workload,
                                     std::vector<Diagnostic>& out) const {
  const std::int64_t tp = int_or(scenario, "parallelism.tp", 1);
  const std::int64_t heads = int_or(workload, "heads", 0);
  if (heads > 0 && (tp > heads || heads % tp != 0))
    config::report(scenario, "parallelism.tp",
                   fmt::format("tp {} must divide workload.heads {} (each tensor-parallel rank holds heads/tp heads)",
                               tp, heads),
                   out);
  for (const std::int64_t kv : kv_head_values(workload))
    if (kv > 0 && kv % tp != 0) {
      config::report(scenario, "parallelism.tp",
                     fmt::format("tp {} must divide the workload's kv_heads {} (Megatron shards key/value heads "
                                 "over the tensor-parallel group)",
                                 tp, kv),
                     out);
      break;
    }
  for (const std::int64_t f : ffn_values(workload))
    if (f > 0 && f % tp != 0) {
      config::report(scenario, "parallelism.tp",
                     fmt::format("tp {} must divide the workload's ffn_hidden {} (each rank holds ffn_hidden/tp MLP "
                                 "columns)",
                                 tp, f),
                     out);
      break;
    }
  const ConfigValue* sp = scenario.find("parallelism.sequence_parallel");
  check_experts(scenario, workload, out);
  check_op_recompute(scenario, workload, out);
  const std::int64_t seq = int_or(workload, "seq_length", 0);
  if (sp && sp->as_bool() && seq > 0 && seq % tp != 0)
    config::report(scenario, "parallelism.sequence_parallel",
                   fmt::format("sequence parallelism splits the sequence over tp: seq_length {} must be divisible "
                               "by tp {}",
                               seq, tp),
                   out);
}

std::optional<std::int64_t> TransformerType::pipeline_units(const ConfigDocument& doc) const {
  const std::int64_t layers = int_or(doc, "layers", 0);
  return layers > 0 ? std::optional<std::int64_t>(layers) : std::nullopt;
}

config::WorkloadSpec make_transformer_workload(std::string name, TransformerSpec spec) {
  config::WorkloadSpec w;
  w.name = std::move(name);
  w.type = "transformer";
  w.params = std::make_shared<TransformerSpec>(std::move(spec));
  return w;
}

}  // namespace clearfog::workload
