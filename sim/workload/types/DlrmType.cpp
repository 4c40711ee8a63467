// The dlrm workload type's configuration: its keys and its parameters. Its checks are in
// DlrmChecks.cpp, its blocks in DlrmBlocks.cpp and DlrmEmbeddings.cpp.
#include "workload/types/DlrmType.hpp"

#include <fmt/format.h>

#include "config/KeyTableParts.hpp"
#include "core/Errors.hpp"

namespace clearfog::workload {

using config::ConfigDocument;
using config::ConfigValue;
using config::Constraint;
using config::KeySpec;
using config::KeyType;
using config::Presence;

namespace {

std::vector<KeySpec> table_fields() {
  using config::names;
  return {
      {.path = "name", .presence = Presence::Derived, .default_text = "t<index>",
       .description = "Name in the kernel table and messages."},
      {.path = "rows", .type = KeyType::Number, .constraint = Constraint::Positive,
       .description = "Rows (distinct values of the categorical feature)."},
      {.path = "dim", .type = KeyType::Integer, .presence = Presence::Derived, .default_text = "embedding_dim",
       .constraint = Constraint::AtLeastOne, .counts = "elements", .description = "Embedding dimension."},
      {.path = "pooling", .type = KeyType::Number, .presence = Presence::Defaulted, .default_text = "1",
       .constraint = Constraint::Positive,
       .description = "Pooling factor: mean lookups per sample, summed into one vector (1: one-hot)."},
      {.path = "distribution", .type = KeyType::Enum, .choices = names(kAllIndexKinds, kernels::index_kind_name),
       .presence = Presence::Defaulted, .default_text = "uniform",
       .description = "How indices are drawn: uniform over the rows; zipf (exponent `zipf_s`, rows ranked by "
                      "popularity); hit_rate (a known L2 hit rate `hit_rate`). Decides the on-chip cache hit rate "
                      "and, with deduplicate, the distinct rows."},
      {.path = "zipf_s", .type = KeyType::Number, .presence = Presence::Optional, .constraint = Constraint::Positive,
       .description = "distribution zipf: the exponent s (p_k proportional to k^-s)."},
      {.path = "hit_rate", .type = KeyType::Number, .presence = Presence::Optional,
       .constraint = Constraint::NonNegative, .description = "distribution hit_rate: the share of lookups the L2 serves, <= 1."},
      {.path = "sharding", .type = KeyType::Enum, .choices = names(kAllTableShardings, table_sharding_name),
       .presence = Presence::Defaulted, .default_text = "table-wise",
       .description = "table-wise (one device holds it), row-wise (rows split over consecutive devices, partial "
                      "sums reduce-scattered), column-wise (columns split), table-row-wise (rows split over the "
                      "devices of one node), data-parallel (replicated, gradients all-reduced)."},
      {.path = "rank", .type = KeyType::Integer, .presence = Presence::Optional, .constraint = Constraint::NonNegative,
       .counts = "device",
       .description = "table-wise: the device holding it; row-, column-wise: the first of its consecutive devices "
                      "(devices of the expert-parallel group, 0 .. ep-1). Absent: placed by the greedy planner "
                      "(least loaded device first; row-wise from device 0)."},
      {.path = "shards", .type = KeyType::Integer, .presence = Presence::Optional,
       .constraint = Constraint::AtLeastOne, .counts = "devices",
       .description = "row-, column-wise: how many consecutive devices share it. Absent: row-wise all; column-wise "
                      "the largest divisor of dim not above the devices."},
      {.path = "host", .type = KeyType::Integer, .presence = Presence::Optional, .constraint = Constraint::NonNegative,
       .counts = "node",
       .description = "table-row-wise: the node whose devices share its rows. Absent: the least loaded node."},
      {.path = "count", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "1",
       .constraint = Constraint::AtLeastOne, .counts = "tables",
       .description = "This many identical tables (named <name>.0, <name>.1, ...)."},
  };
}

kernels::IndexDistribution distribution_of(const ConfigValue& e) {
  kernels::IndexDistribution d;
  d.kind = config::value_named(kAllIndexKinds, kernels::index_kind_name, e.field("distribution")->as_string());
  if (const auto* s = e.field("zipf_s")) d.zipf_s = s->as_number();
  if (const auto* h = e.field("hit_rate")) d.hit_rate = h->as_number();
  return d;
}

int optional_int(const ConfigValue& e, std::string_view name, int absent) {
  const ConfigValue* f = e.field(name);
  return f && !f->is_derived() ? static_cast<int>(f->as_integer()) : absent;
}

}  // namespace

std::string_view DlrmType::description() const {
  return "a recommendation model (DLRM, DLRM-DCNv2): dense features through a bottom MLP, categorical features "
         "looked up in embedding `tables` and pooled, a dot or concat interaction (optionally DCNv2 cross layers), "
         "a top MLP and the click loss. Tables are sharded over the expert-parallel group (parallelism.ep = dp), "
         "the MLPs data parallel; docs/dlrm.md.";
}

std::vector<KeySpec> DlrmType::keys() const {
  using config::names;
  return {
      {.path = "dense_features", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "features",
       .description = "Dense (continuous) input features of a sample."},
      {.path = "embedding_dim", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "elements",
       .description = "Embedding dimension of tables that do not give `dim`."},
      {.path = "tables", .type = KeyType::Record,
       .description = "The embedding tables, e.g. [{rows: 39884406, pooling: 1}, {rows: 40000000, pooling: 100, "
                      "sharding: row-wise}]; one per categorical feature.",
       .list = true, .fields = table_fields()},
      {.path = "bottom_mlp", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "features",
       .description = "Output features of the bottom MLP's layers (each with ReLU), e.g. [512, 256, 128]; with dot "
                      "the last equals the tables' dim.",
       .list = true},
      {.path = "top_mlp", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "features",
       .description = "Output features of the top MLP's layers, the last 1 (the click logit, then sigmoid and "
                      "binary cross-entropy), e.g. [1024, 1024, 512, 256, 1].",
       .list = true},
      {.path = "interaction", .type = KeyType::Enum, .choices = names(kAllDlrmInteractions, dlrm_interaction_name),
       .presence = Presence::Defaulted, .default_text = "dot",
       .description = "dot: the pairwise dot products of the bottom output and the pooled embeddings with the bottom "
                      "output (DLRM); concat: the vectors concatenated (DCNv2's input)."},
      {.path = "cross_layers", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "0",
       .constraint = Constraint::NonNegative, .counts = "layers",
       .description = "DCNv2 cross layers on the interaction's output: x_{l+1} = x_0 * (W x_l + b) + x_l."},
      {.path = "cross_rank", .type = KeyType::Integer, .presence = Presence::Optional,
       .constraint = Constraint::AtLeastOne, .counts = "elements",
       .description = "Low rank r of the cross layers' W = U V (D x r and r x D). Absent: full-rank D x D."},
      {.path = "bottom_mlp_rank", .type = KeyType::Integer, .presence = Presence::Optional,
       .constraint = Constraint::NonNegative, .counts = "device",
       .description = "The bottom MLP is model parallel: this device runs it for every sample of the group and "
                      "sends its output with the pooled embeddings (DeepLearningExamples' hybrid parallel). "
                      "Absent: data parallel on every device."},
      {.path = "embedding_precision", .type = KeyType::Enum, .choices = {"fp32", "fp16", "bf16"},
       .presence = Presence::Defaulted, .default_text = "fp32",
       .description = "Storage type of the embedding rows; pooled outputs use the training precision."},
      {.path = "embedding_optimizer", .type = KeyType::Enum,
       .choices = names(kAllEmbeddingOptimizers, embedding_optimizer_name), .presence = Presence::Defaulted,
       .default_text = "sgd",
       .description = "The tables' optimizer and its state per row: sgd none, rowwise_adagrad one fp32, adagrad dim "
                      "fp32, adam 2 x dim fp32."},
      {.path = "fused_optimizer", .type = KeyType::Bool, .presence = Presence::Defaulted, .default_text = "true",
       .description = "The update runs inside the backward kernel (FBGEMM TBE); false: the backward writes a sparse "
                      "gradient and an optimizer kernel applies it."},
      {.path = "deduplicate", .type = KeyType::Bool, .presence = Presence::Defaulted, .default_text = "false",
       .description = "The backward sorts the indices (radix sort) and updates each distinct row once."},
  };
}

std::shared_ptr<const config::WorkloadParams> DlrmType::build(const ConfigDocument& doc) const {
  auto spec = std::make_shared<DlrmSpec>();
  spec->dense_features = doc.get_int("dense_features");
  spec->bottom_mlp = doc.get_int_list("bottom_mlp");
  spec->top_mlp = doc.get_int_list("top_mlp");
  spec->interaction = config::value_named(kAllDlrmInteractions, dlrm_interaction_name, doc.get_string("interaction"));
  spec->cross_layers = doc.get_int("cross_layers");
  spec->cross_rank = doc.find("cross_rank") ? doc.get_int("cross_rank") : 0;
  spec->embedding_precision = *parse_dtype(doc.get_string("embedding_precision"));
  spec->embedding_optimizer =
      config::value_named(kAllEmbeddingOptimizers, embedding_optimizer_name, doc.get_string("embedding_optimizer"));
  spec->fused_optimizer = doc.get_bool("fused_optimizer");
  spec->deduplicate = doc.get_bool("deduplicate");
  spec->bottom_mlp_rank = doc.find("bottom_mlp_rank") ? doc.get_int("bottom_mlp_rank") : kAutoPlacement;
  const int dim = doc.get_int("embedding_dim");
  std::size_t index = 0;
  for (const ConfigValue& e : doc.at("tables").as_list()) {
    EmbeddingTable t;
    const ConfigValue* name = e.field("name");
    t.name = name && !name->is_derived() ? name->as_string() : fmt::format("t{}", index);
    t.rows = e.field("rows")->as_number();
    t.dim = optional_int(e, "dim", dim);
    t.pooling = e.field("pooling")->as_number();
    t.distribution = distribution_of(e);
    t.sharding = config::value_named(kAllTableShardings, table_sharding_name, e.field("sharding")->as_string());
    t.rank = optional_int(e, "rank", kAutoPlacement);
    t.shards = optional_int(e, "shards", 0);
    t.host = optional_int(e, "host", kAutoPlacement);
    const int count = optional_int(e, "count", 1);
    for (int c = 0; c < count; ++c) {
      spec->tables.push_back(t);
      if (count > 1) spec->tables.back().name = fmt::format("{}.{}", t.name, c);
    }
    ++index;
  }
  return spec;
}

std::optional<std::int64_t> DlrmType::pipeline_units(const ConfigDocument& /*doc*/) const { return kDlrmBlocks; }

std::string DlrmType::shape_text(const config::WorkloadSpec& workload) const {
  const auto& s = workload.as<DlrmSpec>();
  double rows = 0;
  for (const auto& t : s.tables) rows += t.rows;
  const std::string cross =
      s.cross_layers > 0 ? fmt::format(", {} cross layers{}", s.cross_layers,
                                       s.cross_rank > 0 ? fmt::format(" (rank {})", s.cross_rank) : std::string())
                         : std::string();
  return fmt::format("{} dense features, {} tables ({:.3g} rows), bottom MLP {}, {} interaction{}, top MLP {}",
                     s.dense_features, s.tables.size(), rows, fmt::join(s.bottom_mlp, "-"),
                     dlrm_interaction_name(s.interaction), cross, fmt::join(s.top_mlp, "-"));
}

config::WorkloadSpec make_dlrm_workload(std::string name, DlrmSpec spec) {
  config::WorkloadSpec w;
  w.name = std::move(name);
  w.type = "dlrm";
  w.params = std::make_shared<DlrmSpec>(std::move(spec));
  return w;
}

}  // namespace clearfog::workload
