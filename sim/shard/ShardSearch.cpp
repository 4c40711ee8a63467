// The sharding search (docs/dlrm.md, "Choosing the sharding"): candidates, their simulation in
// child processes, the ranking.
#include "config/NodeTopologySchema.hpp"
#include "shard/ShardSearch.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <numeric>

#include "core/Errors.hpp"
#include "driver/CollectiveChoice.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedPool.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "kernels/ScaledCostModel.hpp"
#include "report/Summary.hpp"
#include "workload/WorkloadType.hpp"
#include "workload/types/DlrmGreedySharder.hpp"
#include "workload/types/DlrmPlacement.hpp"

namespace clearfog::shard {

using workload::ShardPlan;
using workload::TableChoice;
using workload::TableSharding;

namespace {

constexpr double kSameStepRelative = 1e-6;
constexpr const char* kPickOrigin = "greedy pick";

/// Every table sharded the same way (`choice`), the baselines the pick is measured against.
ShardPlan uniform_plan(std::size_t tables, TableChoice choice) { return ShardPlan(tables, choice); }

/// The placement a plan resolves to (every shard's device, rows and columns): plans with the same
/// placement are one candidate.
std::string placement_key(const workload::DlrmSpec& spec, int group, int node_devices) {
  std::string key;
  const auto placed = workload::place_tables(spec, group, node_devices);
  for (std::size_t i = 0; i < placed.size(); ++i) {
    key += fmt::format("{}|", static_cast<int>(spec.tables[i].sharding));
    for (const auto& s : placed[i].shards) key += fmt::format("{}:{}:{},", s.rank, s.rows, s.dim);
    key += ';';
  }
  return key;
}

class CandidateList {
public:
  CandidateList(const workload::DlrmSpec& spec, const config::ScenarioSpec& scenario,
                const workload::ShardCostInputs& inputs)
      : spec_(spec), scenario_(scenario), inputs_(inputs) {}

  /// Adds `plan` unless a candidate already has its placement (then `origin` joins that one's); a
  /// plan whose placement the group cannot hold is skipped (a uniform baseline that does not apply).
  void add(const std::string& origin, const ShardPlan& plan) {
    const auto spec = workload::with_plan(spec_, plan);
    for (const auto& t : spec.tables)
      if (!workload::placement_problem(t, inputs_.group, inputs_.node_devices).empty()) return;
    const auto key = placement_key(spec, inputs_.group, inputs_.node_devices);
    if (const auto it = index_.find(key); it != index_.end()) {
      if (origin != "exhaustive") list_[it->second].origin += ", " + origin;
      return;
    }
    index_.emplace(key, list_.size());
    ShardCandidate c;
    c.origin = origin;
    c.plan = plan;
    c.plan_text = workload::plan_text(spec_, plan);
    c.estimate = workload::estimate_sharding(spec, inputs_);
    list_.push_back(std::move(c));
  }

  [[nodiscard]] config::ScenarioSpec scenario_of(const ShardCandidate& c) const {
    auto s = scenario_;
    s.workload.params = std::make_shared<workload::DlrmSpec>(workload::with_plan(spec_, c.plan));
    return s;
  }

  std::vector<ShardCandidate>& list() { return list_; }

private:
  const workload::DlrmSpec& spec_;
  const config::ScenarioSpec& scenario_;
  const workload::ShardCostInputs& inputs_;
  std::vector<ShardCandidate> list_;
  std::map<std::string, std::size_t> index_;
};

void add_baselines(CandidateList& list, const workload::DlrmSpec& spec) {
  const auto n = spec.tables.size();
  const int auto_place = workload::kAutoPlacement;
  list.add("as written", workload::written_plan(spec));
  list.add("table-wise", uniform_plan(n, {TableSharding::TableWise, auto_place, 0, auto_place}));
  list.add("row-wise", uniform_plan(n, {TableSharding::RowWise, auto_place, 0, auto_place}));
  list.add("column-wise", uniform_plan(n, {TableSharding::ColumnWise, auto_place, 0, auto_place}));
  list.add("data-parallel", uniform_plan(n, {TableSharding::DataParallel, auto_place, 0, auto_place}));
}

void simulate(CandidateList& list, int jobs) {
  std::vector<std::function<std::string()>> bodies;
  for (const auto& c : list.list())
    bodies.emplace_back([scenario = list.scenario_of(c)] {
      const auto run = driver::run_scenario(scenario);
      const auto summary = report::summary_json(scenario, run.metrics);
      nlohmann::ordered_json j;
      j["status"] = summary.at("status");
      j["step_time_s"] = summary.at("step_time_s");
      j["ep_comm_s"] = run.metrics.ep_comm_s;
      j["memory_B"] = run.metrics.memory.total_B();
      return j.dump();
    });
  const auto outcomes = engine::run_forked_all(bodies, jobs);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    auto& c = list.list()[i];
    if (!outcomes[i].ok) {
      c.message = outcomes[i].text;
      continue;
    }
    const auto j = nlohmann::ordered_json::parse(outcomes[i].text);
    c.status = j.at("status").get<std::string>();
    c.step_s = j.at("step_time_s").get<double>();
    c.embedding_comm_s = j.at("ep_comm_s").get<double>();
    c.memory_B = j.at("memory_B").get<double>();
  }
}

struct RingLink {
  double bandwidth_Bps = 0;
  double route_s = 0;  // latency from a member to the next
};

/// A group collective as the collective layer would run it: the algorithm, protocol and channels
/// it would choose; a ring priced by its closed form with that protocol's figures, (p-1) steps of
/// overhead and route latency plus (p-1)/p of the bytes at the protocol's share of the bandwidth
/// (twice for an all-reduce); any other algorithm by NCCL's own time model.
double collective_estimate_s(const topology::ClusterTopology& cluster, const std::vector<int>& members, RingLink link,
                             config::CollectiveAlgorithm requested, config::CollectiveOp op, double bytes) {
  const auto choice = driver::choose_collective(cluster, op, members, bytes, requested);
  if (choice.algorithm.name() != "ring" && choice.nccl_estimate_s.value_or(0) > 0)
    return *choice.nccl_estimate_s;
  const double p = static_cast<double>(members.size());
  const bool copies = op == config::CollectiveOp::AllGather;
  const double efficiency = copies ? choice.protocol.copy_efficiency : choice.protocol.efficiency;
  const double passes = op == config::CollectiveOp::AllReduce ? 2 : 1;
  return passes * ((p - 1) * (choice.protocol.step_overhead_s + link.route_s) +
                   (p - 1) / p * bytes / (link.bandwidth_Bps * efficiency));
}

int status_order(const std::string& status) { return status == "ok" ? 0 : status == "oom" ? 1 : 2; }

}  // namespace

std::string space_size_text(std::uint64_t plans) {
  return plans == std::numeric_limits<std::uint64_t>::max() ? std::string("more than 1.8e19") : std::to_string(plans);
}

bool ShardSearchResult::pick_is_best() const {
  if (ranked.empty()) return false;
  return ranked[pick].status == ranked.front().status &&
         ranked[pick].step_s <= ranked.front().step_s * (1 + kSameStepRelative);
}

double ShardSearchResult::pick_slowdown() const {
  if (ranked.empty() || pick_is_best() || ranked.front().step_s <= 0) return 0;
  return ranked[pick].step_s / ranked.front().step_s - 1;
}

workload::ShardCostInputs shard_cost_inputs(const config::ScenarioSpec& s, const kernels::KernelCostModel& costs,
                                            const topology::ClusterTopology& cluster) {
  const auto& p = s.platform;
  workload::ShardCostInputs in;
  in.group = s.parallelism.ep;
  in.node_devices = p.node.devices;
  in.micro_batch = s.training.micro_batch;
  in.precision = s.training.precision;
  in.intra_node_Bps = p.node.link.bandwidth_Bps;
  in.inter_node_Bps = p.fabric.nodes > 1 && p.fabric.nic_count > 0
                          ? p.fabric.nic.bandwidth_Bps * p.fabric.nic_count / p.node.devices
                          : in.intra_node_Bps;
  in.capacity_B = p.accelerator.memory_capacity_B;
  in.costs = &costs;
  for (const auto& block : workload::describe(s).blocks)
    if (block.name != "embeddings")
      for (const auto& t : block.params) in.dense_gradient_B += t.elements * dtype_bytes(s.gradient_reduce_dtype());
  in.bucket_B = s.training.bucket_size_B;
  std::vector<int> members(static_cast<std::size_t>(in.group));
  std::iota(members.begin(), members.end(), 0);
  const auto simple = driver::group_protocol(cluster, members, config::Protocol::Simple);
  // A route inside a switched node crosses two links (device, switch, device); across nodes also
  // both NICs and the fabric's links (counted as two).
  double route_s = (p.node.topology.schema().has_switch() ? 2 : 1) * p.node.link.latency_s;
  if (in.group > in.node_devices) route_s += 2 * (p.fabric.nic.latency_s + p.fabric.link.latency_s);
  in.exchange_overhead_s = simple->step_overhead_s + route_s;
  in.exchange_efficiency = simple->copy_efficiency;
  const double ring_Bps = in.group > in.node_devices ? in.inter_node_Bps : in.intra_node_Bps;
  // `best` simulates candidates to choose; the estimate takes NCCL's choice instead.
  const auto requested = s.collectives.algorithm.is_best() ? config::CollectiveAlgorithm::nccl()
                                                                                      : s.collectives.algorithm;
  in.group_collective_s = [&cluster, members, ring_Bps, route_s, requested](config::CollectiveOp op, double bytes) {
    return collective_estimate_s(cluster, members, {ring_Bps, route_s}, requested, op, bytes);
  };
  return in;
}

ShardSearchResult search_shardings(const ShardSearchRequest& req) {
  const auto& scenario = req.scenario;
  if (scenario.workload.type != "dlrm")
    throw Error(fmt::format("clearfog shard searches the table sharding of a dlrm workload; '{}' is a {} workload",
                            scenario.workload.name, scenario.workload.type));
  const auto& spec = scenario.workload.as<workload::DlrmSpec>();
  const kernels::BlockedGemmModel base(scenario.platform.accelerator);
  const kernels::ScaledCostModel costs(base, scenario.framework.kernel_time_factor);
  const auto cluster = topology::ClusterTopology::build(scenario.platform);
  const auto inputs = shard_cost_inputs(scenario, costs, cluster);
  const workload::ShardSpace space{inputs.group, inputs.group <= inputs.node_devices, spec.bottom_mlp_rank};

  ShardSearchResult r;
  r.scenario = scenario.name;
  r.group = inputs.group;
  r.exhaustive = req.exhaustive;
  r.exhaustive_plans = workload::exhaustive_plan_count(spec, space);
  CandidateList list(spec, scenario, inputs);
  list.add(kPickOrigin, workload::greedy_plan(spec, inputs));
  add_baselines(list, spec);
  if (req.exhaustive && r.exhaustive_plans > req.max_plans)
    throw ConfigError({{{"--max-plans", 0, 0},
                        "",
                        fmt::format("the exhaustive space of {} tables on {} devices has {} plans, more than the {} "
                                    "allowed: raise --max-plans (at most 1000000) or search without --exhaustive",
                                    spec.tables.size(), inputs.group, space_size_text(r.exhaustive_plans),
                                    req.max_plans)}});
  if (req.exhaustive)
    for (const auto& plan : workload::exhaustive_plans(spec, space, req.max_plans)) list.add("exhaustive", plan);
  spdlog::info("shard: simulating {} sharding plans", list.list().size());
  simulate(list, req.jobs);

  r.ranked = std::move(list.list());
  std::stable_sort(r.ranked.begin(), r.ranked.end(), [](const ShardCandidate& a, const ShardCandidate& b) {
    const int sa = status_order(a.status), sb = status_order(b.status);
    return sa != sb ? sa < sb : sa < 2 && a.step_s < b.step_s;
  });
  for (std::size_t i = 0; i < r.ranked.size(); ++i)
    if (r.ranked[i].origin.rfind(kPickOrigin, 0) == 0) r.pick = i;
  return r;
}

}  // namespace clearfog::shard
