// The dlrm workload type's rules: between its own keys (tables, MLPs, interaction) and against how a
// scenario trains it (the tables sharded over parallelism.ep = dp, data-parallel MLPs, one
// micro-batch per step, placements inside the group).
#include <fmt/format.h>

#include <cmath>

#include "config/CheckSupport.hpp"
#include "config/KeyTableParts.hpp"
#include "workload/types/DlrmPlacement.hpp"
#include "workload/types/DlrmType.hpp"

namespace clearfog::workload {

using config::ConfigDocument;
using config::ConfigValue;

namespace {

// Beyond these a workload is a typo: a trillion rows of 128 fp32 elements are 512 TB; a
// million lookups per sample, or 65536 tables (the dot interaction's F^2 / 2 features), have no
// published model near them.
constexpr double kMaxRows = 1e12;
constexpr double kMaxPooling = 1e6;
constexpr std::int64_t kMaxTables = 1 << 16;

/// A key of a table entry given although its distribution or sharding does not use it.
void check_table_fields(const ConfigValue& entry, std::vector<Diagnostic>& out) {
  const std::string distribution = entry.field("distribution")->as_string();
  const std::string sharding = entry.field("sharding")->as_string();
  const auto needs = [&](std::string_view key, bool used, const std::string& what) {
    const ConfigValue* f = entry.field(key);
    if (f && !f->is_default() && !used)
      config::report_at(*f, fmt::format("`{}` is only used with {}", key, what), out);
  };
  needs("zipf_s", distribution == "zipf", "distribution zipf");
  needs("hit_rate", distribution == "hit_rate", "distribution hit_rate");
  needs("rank", sharding == "table-wise" || sharding == "row-wise" || sharding == "column-wise",
        "sharding table-wise, row-wise or column-wise");
  needs("shards", sharding == "row-wise" || sharding == "column-wise", "sharding row-wise or column-wise");
  needs("host", sharding == "table-row-wise", "sharding table-row-wise");
  if (distribution == "zipf" && !entry.field("zipf_s"))
    config::report_at(entry, "distribution zipf needs `zipf_s` (the exponent, > 0)", out);
  if (distribution == "hit_rate") {
    const ConfigValue* h = entry.field("hit_rate");
    if (!h)
      config::report_at(entry, "distribution hit_rate needs `hit_rate` (the L2's share of lookups, 0 .. 1)", out);
    else if (h->as_number() > 1)
      config::report_at(*h, fmt::format("a hit rate is at most 1, got {}", h->text), out);
  }
  const ConfigValue* rows = entry.field("rows");
  if (rows->as_number() != std::floor(rows->as_number()))
    config::report_at(*rows, fmt::format("rows must be a whole number, got {}", rows->text), out);
  if (rows->as_number() > kMaxRows)
    config::report_at(*rows, fmt::format("{} rows is too many: at most {:g}", rows->text, kMaxRows), out);
  if (const ConfigValue* pooling = entry.field("pooling"); pooling->as_number() > kMaxPooling)
    config::report_at(*pooling, fmt::format("pooling {} is too large: at most {:g} lookups per sample", pooling->text,
                                            kMaxPooling),
                      out);
}

/// The dim a table entry has (its own, or embedding_dim).
std::int64_t dim_of(const ConfigDocument& doc, const ConfigValue& entry) {
  const ConfigValue* dim = entry.field("dim");
  return dim && !dim->is_derived() ? dim->as_integer() : doc.get_int("embedding_dim");
}

std::int64_t given(const ConfigDocument& doc, std::string_view key, std::int64_t absent) {
  const ConfigValue* v = doc.find(key);
  return v ? v->as_integer() : absent;
}

}  // namespace

void DlrmType::check(const ConfigDocument& doc, std::vector<Diagnostic>& out) const {
  const ConfigValue* tables = doc.find("tables");
  if (tables && tables->as_list().empty()) config::report_at(*tables, "a dlrm workload needs at least one table", out);
  for (const std::string_view key : {"bottom_mlp", "top_mlp"})
    if (const ConfigValue* mlp = doc.find(key); mlp && mlp->as_list().empty())
      config::report_at(*mlp, fmt::format("{} needs at least one layer", key), out);
  if (const ConfigValue* top = doc.find("top_mlp"); top && !top->as_list().empty() && top->as_list().back().as_integer() != 1)
    config::report_at(top->as_list().back(),
                      fmt::format("the top MLP ends in the click logit: its last layer must have 1 output, got {}",
                                  top->as_list().back().as_integer()),
                      out);
  if (const ConfigValue* rank = doc.find("cross_rank"); rank && doc.get_int("cross_layers") == 0)
    config::report_at(*rank, "`cross_rank` is only used with cross_layers > 0", out);
  if (!tables) return;
  std::int64_t count = 0;
  for (const ConfigValue& entry : tables->as_list()) count += entry.field("count")->as_integer();
  if (count > kMaxTables)
    config::report_at(*tables, fmt::format("{} tables (counting `count`) is too many: at most {}", count, kMaxTables), out);
  const ConfigValue* bottom = doc.find("bottom_mlp");
  const bool dot = doc.get_string("interaction") == "dot";
  for (const ConfigValue& entry : tables->as_list()) {
    check_table_fields(entry, out);
    if (dot && bottom && !bottom->as_list().empty() && dim_of(doc, entry) != bottom->as_list().back().as_integer()) {
      const ConfigValue* dim = entry.field("dim");
      config::report_at(dim && !dim->is_default() ? *dim : entry,
                        fmt::format("the dot interaction multiplies each pooled embedding with the bottom MLP's "
                                    "output: dim {} must equal bottom_mlp's last layer, {}",
                                    dim_of(doc, entry), bottom->as_list().back().as_integer()),
                        out);
    }
  }
}

void DlrmType::check_scenario(const ConfigDocument& scenario, const ConfigDocument& workload,
                              std::vector<Diagnostic>& out) const {
  const std::int64_t dp = given(scenario, "parallelism.dp", 1), ep = given(scenario, "parallelism.ep", 1);
  for (const std::string_view key : {"parallelism.tp", "parallelism.pp"})
    if (given(scenario, key, 1) != 1)
      config::report(scenario, key,
                     fmt::format("a dlrm workload trains its MLPs data parallel and shards its tables over "
                                 "parallelism.ep; {} must be 1, got {}",
                                 key.substr(12), given(scenario, key, 1)),
                     out);
  if (const auto* sp = scenario.find("parallelism.sequence_parallel"); sp && sp->as_bool())
    config::report(scenario, "parallelism.sequence_parallel",
                   "sequence parallelism splits a transformer's sequence; a dlrm workload allows false only", out);
  if (const auto* precision = scenario.find("training.precision"); precision && precision->as_string() == "fp8")
    config::report(scenario, "training.precision", fp8_training_refusal(name(), kFp8Kernels), out);
  check_op_recompute_refused(scenario, name(), out);
  if (ep != dp)
    config::report(scenario, "parallelism.ep",
                   fmt::format("a dlrm workload shards its embedding tables over the expert-parallel group, which "
                               "must be every device: ep must equal dp ({}), got {}",
                               dp, ep),
                   out);
  const std::int64_t global = given(scenario, "training.global_batch", 0);
  const std::int64_t micro = given(scenario, "training.micro_batch", 0);
  if (global > 0 && micro > 0 && global != micro * dp)
    config::report(scenario, "training.micro_batch",
                   fmt::format("the fused embedding optimizer updates the tables in every backward pass: one "
                               "micro-batch per step, micro_batch must be global_batch / dp = {}, got {}",
                               global / dp, micro),
                   out);
  if (const ConfigValue* rank = workload.find("bottom_mlp_rank"); rank && rank->as_integer() >= dp)
    config::report_at(*rank,
                      fmt::format("bottom_mlp_rank {} is outside the {} devices the model is split over (0 .. {})",
                                  rank->as_integer(), dp, dp - 1),
                      out);
  const ConfigValue* tables = workload.find("tables");
  const ConfigDocument* platform = scenario.child("platform");
  if (!tables || ep != dp) return;
  const std::int64_t node_devices = platform && platform->find("node.devices") ? platform->get_int("node.devices") : 1;
  std::size_t index = 0;
  for (const ConfigValue& entry : tables->as_list()) {
    EmbeddingTable t;
    t.name = entry.field("name") && !entry.field("name")->is_derived() ? entry.field("name")->as_string()
                                                                       : fmt::format("t{}", index);
    t.rows = entry.field("rows")->as_number();
    t.dim = static_cast<int>(dim_of(workload, entry));
    t.sharding = config::value_named(kAllTableShardings, table_sharding_name, entry.field("sharding")->as_string());
    if (const auto* f = entry.field("rank")) t.rank = static_cast<int>(f->as_integer());
    if (const auto* f = entry.field("shards")) t.shards = static_cast<int>(f->as_integer());
    if (const auto* f = entry.field("host")) t.host = static_cast<int>(f->as_integer());
    if (const auto problem = placement_problem(t, static_cast<int>(dp), static_cast<int>(node_devices)); !problem.empty())
      config::report_at(entry, problem, out);
    ++index;
  }
}

}  // namespace clearfog::workload
