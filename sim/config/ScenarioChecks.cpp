#include "config/ScenarioChecks.hpp"

#include <algorithm>
#include <set>
#include <cstdint>
#include <array>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "config/CheckSupport.hpp"
#include "config/CollectiveAlgorithmSchema.hpp"
#include "config/CollectiveSpec.hpp"
#include "config/RoutingTrace.hpp"
#include "config/StragglerSpec.hpp"
#include "config/WorkloadTypeSchema.hpp"
#include "core/CheckedMath.hpp"
#include "core/Errors.hpp"
#include "schedule/PipelineSchedule.hpp"

namespace clearfog::config {

namespace {

// ---- Scenario -----------------------------------------------------------------------------------

std::int64_t int_or(const ConfigDocument& doc, std::string_view key, std::int64_t fallback) {
  const ConfigValue* v = doc.find(key);
  return v ? v->as_integer() : fallback;
}

/// The workload type a workload document names, or nullptr when its `type` is invalid.
const WorkloadTypeSchema* type_of(const ConfigDocument& workload) {
  const ConfigValue* type = workload.find("type");
  return type ? find_workload_type_schema(type->as_string()) : nullptr;
}

/// How the pipeline's `chunks` model chunks split the workload's units (parallelism.layer_split,
/// or the partition: even needs divisibility, balanced needs a unit per chunk).
void check_pipeline_split(const ConfigDocument& doc, const ConfigDocument& workload, std::int64_t chunks,
                          std::vector<Diagnostic>& out) {
  const WorkloadTypeSchema* type = type_of(workload);
  const auto units = type ? type->pipeline_units(workload) : std::nullopt;
  if (!units) return;
  const std::int64_t pp = int_or(doc, "parallelism.pp", 1);
  const std::int64_t v = int_or(doc, "parallelism.virtual_stages", 1);
  if (doc.find("parallelism.layer_split")) {
    const auto list = doc.get_int_list("parallelism.layer_split");
    const std::int64_t sum = std::accumulate(list.begin(), list.end(), std::int64_t{0});
    if (static_cast<std::int64_t>(list.size()) != chunks)
      report(doc, "parallelism.layer_split",
             fmt::format("must have pp*virtual_stages = {}*{} = {} entries, got {}", pp, v, chunks, list.size()), out);
    if (sum != *units)
      report(doc, "parallelism.layer_split",
             fmt::format("entries sum to {}, must equal the workload's {} {}", sum, *units, type->pipeline_unit_name()),
             out);
    return;
  }
  const ConfigValue* partition = doc.find("parallelism.partition");
  const std::string how = partition ? partition->as_string() : "auto";
  const bool even = how == "even" || (how == "auto" && type->default_partition() == StagePartition::Even);
  if (even && *units % chunks != 0)
    report(doc, "parallelism.pp",
           fmt::format("the workload's {} {} are not divisible by pp*virtual_stages = {}*{} = {}; give "
                       "parallelism.layer_split, parallelism.partition: balanced, or change pp",
                       *units, type->pipeline_unit_name(), pp, v, chunks),
           out);
  if (!even && *units < chunks)
    report(doc, "parallelism.pp",
           fmt::format("pp*virtual_stages = {}*{} = {} model chunks need at least one of the workload's {} {} each",
                       pp, v, chunks, *units, type->pipeline_unit_name()),
           out);
}

/// The pipeline schedule's own rules (schedule::PipelineScheduleType::check, the one place they
/// live) on this layout: reported on virtual_stages where v is what breaks them.
void check_schedule(const ConfigDocument& doc, std::int64_t pp, std::int64_t dp, std::int64_t v,
                    std::vector<Diagnostic>& out) {
  const ConfigValue* name = doc.find("parallelism.schedule");
  const auto* type = schedule::find_pipeline_schedule(name ? name->as_string() : "1f1b");
  const ConfigValue* global_batch = doc.find("training.global_batch");
  const ConfigValue* micro_batch = doc.find("training.micro_batch");
  if (!type || !global_batch || !micro_batch || micro_batch->as_integer() < 1 || dp < 1) return;
  const std::int64_t per_step = dp * micro_batch->as_integer();
  if (global_batch->as_integer() % per_step != 0 || pp > INT32_MAX || v > INT32_MAX) return;  // reported elsewhere
  const std::int64_t m = global_batch->as_integer() / per_step;
  const auto shape = [&](std::int64_t chunks) {
    return schedule::PipelineShape{static_cast<int>(pp), static_cast<int>(std::min<std::int64_t>(m, INT32_MAX)),
                                   static_cast<int>(chunks)};
  };
  try {
    type->check(shape(v));
  } catch (const Error& e) {
    bool v_breaks_it = v != 1;
    try {
      type->check(shape(1));
    } catch (const Error&) {
      v_breaks_it = false;
    }
    report(doc, v_breaks_it ? "parallelism.virtual_stages" : "parallelism.schedule", e.what(), out);
  }
}

/// The 3D-parallel layout against the workload: heads over tp, layers over pp x virtual_stages,
/// micro-batches of the interleaved schedule, ZeRO stage and device order.
void check_parallel_layout(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  const std::int64_t pp = int_or(doc, "parallelism.pp", 1);
  const std::int64_t dp = int_or(doc, "parallelism.dp", 1);
  const std::int64_t v = int_or(doc, "parallelism.virtual_stages", 1);
  if (const ConfigValue* zero = doc.find("parallelism.zero_stage"); zero && zero->as_integer() > 3)
    report(doc, "parallelism.zero_stage", fmt::format("must be 0, 1, 2 or 3, got {}", zero->as_integer()), out);
  if (const ConfigValue* group = used(doc, "parallelism.shard_group"); group && !group->is_derived()) {
    const std::int64_t g = group->as_integer();
    const std::int64_t zero = int_or(doc, "parallelism.zero_stage", 0);
    if (g > 0 && dp % g != 0)
      report_at(*group, fmt::format("must divide parallelism.dp ({}), got {}; allowed: a divisor of dp", dp, g), out);
    else if (g > 0 && g < dp && zero < 1)
      report_at(*group,
                fmt::format("shards over groups of {} of the {} replicas, but parallelism.zero_stage is 0 (nothing is "
                            "sharded); allowed: zero_stage 1 to 3, or shard_group {}",
                            g, dp, dp),
                out);
    else if (g > 0 && g < dp && int_or(doc, "parallelism.ep", 1) > 1)
      report_at(*group, "hybrid sharding with expert parallelism (ep > 1) is not modelled; allowed: shard_group "
                        "equal to dp, or ep 1",
                out);
  }
  if (doc.find("parallelism.order")) {
    const auto names = doc.get_string_list("parallelism.order");
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != std::vector<std::string>{"dp", "pp", "tp"})
      report(doc, "parallelism.order",
             fmt::format("must name tp, pp and dp once each (fastest-varying first), got [{}]", fmt::join(names, ", ")),
             out);
  }

  const ConfigDocument* workload = doc.child("workload");
  if (workload && workload->complete()) check_pipeline_split(doc, *workload, pp * v, out);

  check_schedule(doc, pp, dp, v, out);
}

/// training.grad_compression against its own ranges and the sharding: a compressed bucket is
/// all-reduced or all-gathered whole, which ZeRO's reduce-scatters are not (not modelled).
void check_grad_compression(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  const ConfigValue* method = doc.find("training.grad_compression.method");
  if (!method || method->as_string() == "none") return;
  if (const ConfigValue* zero = doc.find("parallelism.zero_stage"); zero && zero->as_integer() >= 1)
    report(doc, "training.grad_compression.method",
           fmt::format("{} is modelled on the data-parallel all-reduce only; parallelism.zero_stage {} "
                       "reduce-scatters sharded gradients instead; allowed: zero_stage 0, or method none",
                       method->as_string(), zero->as_integer()),
           out);
  if (const ConfigValue* ratio = used(doc, "training.grad_compression.ratio"); ratio && ratio->as_number() > 1)
    report_at(*ratio, fmt::format("must be in (0, 1] (the share of elements sent), got {}", ratio->as_number()), out);
  if (const ConfigValue* bits = used(doc, "training.grad_compression.bits"); bits && bits->as_integer() > 32)
    report_at(*bits, fmt::format("must be 1 to 32 bits per element, got {}", bits->as_integer()), out);
}

bool flag(const ConfigDocument& doc, std::string_view path) {
  const ConfigValue* v = doc.find(path);
  return v && v->as_bool();
}

/// A group of devices the scenario forms, known by its size before the layout places it.
struct AxisGroup {
  std::string_view key;    // its size
  std::string_view what;
  std::array<CollectiveOp, 3> ops;  // what it runs (repeats fill the list)
};

constexpr std::array<AxisGroup, 3> kAxisGroups = {{
    {"parallelism.dp", "data-parallel", {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather}},
    {"parallelism.tp", "tensor-parallel", {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather}},
    {"parallelism.ep", "expert-parallel", {CollectiveOp::AllToAll, CollectiveOp::AllToAll, CollectiveOp::AllToAll}},
}};

/// Why `type` cannot run any of `group`'s collectives over `shape`; nullopt where it runs one.
std::optional<std::string> group_refusal(const CollectiveAlgorithmSchema& type, const AxisGroup& group,
                                         const GroupShape& shape) {
  std::optional<std::string> why;
  for (CollectiveOp op : group.ops) {
    if (!type.implements(op)) continue;
    why = type.refusal(op, shape);
    if (!why) return std::nullopt;
  }
  return why ? why : fmt::format("it has none of its operations");
}

/// The collective algorithm against the scenario's groups: an algorithm runs where its rule
/// (CollectiveAlgorithmType::refusal, asked again of every placed group at run time) allows and
/// leaves the rest to nccl, so one that can run on none of the groups is refused. What the layout
/// decides (whether a group within a node's size stays in one node) is left open here.
void check_algorithm(const ConfigDocument& doc, const ConfigDocument& platform, std::vector<Diagnostic>& out) {
  const ConfigValue* algorithm = doc.find("collectives.algorithm");
  if (!algorithm) return;
  const auto choice = parse_collective_algorithm(algorithm->as_string());
  if (!choice || !choice->is_concrete()) return;
  const auto& type = *collective_algorithm_schemas().at(static_cast<std::size_t>(choice->index()));
  const std::int64_t nodes = platform.at("fabric.nodes").as_integer();
  const std::int64_t per_node = platform.at("node.devices").as_integer();
  std::vector<std::string> reasons;
  for (const AxisGroup& group : kAxisGroups) {
    const ConfigValue* size = doc.find(group.key);
    const std::int64_t members = size ? size->as_integer() : 1;
    if (members < 2) continue;
    GroupShape shape{.members = static_cast<int>(members),
                                  .spans_nodes = {},
                                  .ranks_per_node = {},
                                  .reducing_switch = flag(platform, "node.in_switch_reduction")};
    if (nodes == 1 || members > per_node) shape.spans_nodes = nodes > 1;
    const auto why = group_refusal(type, group, shape);
    if (!why) return;
    reasons.push_back(fmt::format("the {} group ({} {}): {}", group.what, group.key, members, *why));
  }
  if (reasons.empty()) return;
  const std::string name = platform.find("name") ? platform.at("name").as_string() : platform.file();
  const bool fabric_only = nodes > 1 && flag(platform, "fabric.in_network_reduction") && type.reduces_in_switch() &&
                           !flag(platform, "node.in_switch_reduction");
  report_at(*algorithm,
            fmt::format("{} cannot run any of this scenario's collectives on platform \"{}\": {}{}; allowed: nccl, "
                        "best or an algorithm that can",
                        type.name(), name, fmt::join(reasons, "; "),
                        fabric_only ? " (fabric.in_network_reduction alone does not reduce inside the node)" : ""),
            out);
}

/// Whether the scenario's workload is imported from traces (type chakra): its programs come from
/// the traces, so the parallel layout and the batch split do not apply (docs/interop.md).
bool imports_traces(const ConfigDocument& doc) {
  const ConfigDocument* workload = doc.child("workload");
  const ConfigValue* type = workload ? workload->find("type") : nullptr;
  return type && workload_traits(type->as_string()).imported_programs;
}

}  // namespace

/// stragglers: factors within kMinSlowdown ... kMaxSlowdown, each device once and on the platform.
void check_stragglers(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  if (const ConfigValue* sigma = doc.find("stragglers.sigma"); sigma && sigma->numeric() > kMaxStragglerSigma)
    report_at(*sigma, fmt::format("must be at most {} (a log-normal spread; 1 already makes some devices 3x slower), got {}",
                                  kMaxStragglerSigma, sigma->numeric()),
              out);
  const ConfigValue* devices = doc.find("stragglers.devices");
  if (!devices) return;
  const ConfigDocument* platform = doc.child("platform");
  const bool sized = platform && platform->complete() && platform->find("node.devices");
  const std::int64_t count =
      sized ? platform->at("node.devices").as_integer() * platform->at("fabric.nodes").as_integer() : 0;
  std::set<std::int64_t> seen;
  for (const ConfigValue& d : devices->as_list()) {
    const ConfigValue* device = d.field("device");
    const ConfigValue* slowdown = d.field("slowdown");
    if (slowdown && (slowdown->numeric() < kMinSlowdown || slowdown->numeric() > kMaxSlowdown))
      report_at(*slowdown, fmt::format("must be {} ... {}, got {}", kMinSlowdown, kMaxSlowdown, slowdown->numeric()),
                out);
    if (!device) continue;
    if (sized && device->as_integer() >= count)
      report_at(*device, fmt::format("device {} is not on the platform: it has devices 0 ... {}", device->as_integer(),
                                     count - 1),
                out);
    if (!seen.insert(device->as_integer()).second)
      report_at(*device, fmt::format("device {} is listed twice; give each device one slowdown", device->as_integer()),
                out);
  }
}

void check_workload(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  check_conditions(doc, out);
  if (const WorkloadTypeSchema* type = type_of(doc); type && doc.complete()) type->check(doc, out);
}

void check_scenario(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  check_conditions(doc, out);
  check_parallel_layout(doc, out);
  check_grad_compression(doc, out);
  check_stragglers(doc, out);
  if (const ConfigValue* trace = used(doc, "moe.trace")) read_routing_trace(*trace, doc.file(), out);
  if (const ConfigValue* ep = doc.find("parallelism.ep"); ep && ep->as_integer() > 1) {
    const std::int64_t dp = int_or(doc, "parallelism.dp", 1);
    if (dp % ep->as_integer() != 0)
      report_at(*ep,
                fmt::format("ep {} must divide dp {}: expert groups are carved out of the data-parallel replicas",
                            ep->as_integer(), dp),
                out);
  }
  if (const ConfigDocument* workload = doc.child("workload"); workload && workload->complete())
    if (const WorkloadTypeSchema* type = type_of(*workload)) type->check_scenario(doc, *workload, out);

  const ConfigValue* dp = doc.find("parallelism.dp");
  const ConfigValue* tp = doc.find("parallelism.tp");
  const ConfigValue* pp = doc.find("parallelism.pp");
  const ConfigDocument* platform = doc.child("platform");
  const bool platform_valid = platform && platform->complete() && platform->find("node.devices");
  const bool traced = imports_traces(doc);
  if (dp && tp && pp && platform_valid && !traced) {
    const std::int64_t devices_per_node = platform->at("node.devices").as_integer();
    const std::int64_t nodes = platform->at("fabric.nodes").as_integer();
    const std::array<std::int64_t, 3> factors = {dp->as_integer(), tp->as_integer(), pp->as_integer()};
    const auto product = checked_product(factors);
    if (product != devices_per_node * nodes)
      report(doc, "parallelism.dp",
             fmt::format("dp*tp*pp = {}*{}*{} = {} must equal the platform's {} devices (node.devices {} x "
                         "fabric.nodes {})",
                         dp->as_integer(), tp->as_integer(), pp->as_integer(),
                         product ? std::to_string(*product) : "more than 2^63", devices_per_node * nodes,
                         devices_per_node, nodes),
             out);
  }
  if (platform_valid) check_algorithm(doc, *platform, out);

  const ConfigValue* global_batch = doc.find("training.global_batch");
  const ConfigValue* micro_batch = doc.find("training.micro_batch");
  if (global_batch && micro_batch && dp && !traced) {
    const std::int64_t per_step = dp->as_integer() * micro_batch->as_integer();
    if (global_batch->as_integer() % per_step != 0)
      report(doc, "training.global_batch",
             fmt::format("global_batch {} must be divisible by dp*micro_batch = {}*{} = {} (the micro-batch must "
                         "divide each replica's batch)",
                         global_batch->as_integer(), dp->as_integer(), micro_batch->as_integer(), per_step),
             out);
  }

  const ConfigValue* precision = doc.find("training.precision");
  for (const char* key : {"accelerator", "mixed.accelerator"}) {
    const ConfigDocument* accelerator = platform ? platform->child(key) : nullptr;
    if (!precision || !accelerator || !accelerator->complete() ||
        accelerator->find("peak." + precision->as_string()))
      continue;
    const auto* name = accelerator->find("name");
    report(doc, "training.precision",
           fmt::format("the accelerator \"{}\" has no peak for {} (no peak.{} in {}); allowed: {}",
                       name ? name->as_string() : "?", precision->as_string(), precision->as_string(),
                       accelerator->file(), fmt::join(supported_dtypes(*accelerator), ", ")),
           out);
  }
}

}  // namespace clearfog::config
