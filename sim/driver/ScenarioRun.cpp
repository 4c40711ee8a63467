#include "driver/ScenarioRun.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "config/WorkloadTypeSchema.hpp"
#include "core/Errors.hpp"
#include "core/PhaseTimer.hpp"
#include "driver/CollectiveRun.hpp"
#include "driver/ResourceEstimate.hpp"
#include "driver/TuningTable.hpp"
#include "config/ScaleLimits.hpp"
#include "engine/LegacyReplay.hpp"
#include "engine/Replay.hpp"
#include "interop/ChakraImport.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "parallel/StepPlanner.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::driver {
namespace {

/// Above this many ranks, best simulates its candidates at fluid fidelity: step fidelity costs
/// O(P^2) events per candidate.
constexpr int kStepTuningMaxRanks = 64;

/// Planning longer than this is reported on stderr when the run shows progress.
constexpr double kSlowPlanning_s = 5;

/// `members` in the order the platform's ring visits them (rings follow the topology, as NCCL
/// builds them).
std::vector<int> in_ring_order(const topology::ClusterTopology& cluster, const std::vector<int>& members) {
  // Endpoints beyond the devices (reducing switches) are not on the ring: they rank with its first device.
  auto position = [&](int d) { return d < cluster.device_count() ? cluster.ring_position(d) : 0; };
  std::vector<int> ordered = members;
  std::stable_sort(ordered.begin(), ordered.end(), [&](int a, int b) { return position(a) < position(b); });
  return ordered;
}

/// For each of `ordered` (a permutation of `group`), its position in `group`: the caller keeps its
/// own order for deps, matrices and results.
std::vector<int> caller_positions(const std::vector<int>& group, const std::vector<int>& ordered) {
  std::vector<std::pair<int, int>> by_rank;  // (rank, position in group)
  for (std::size_t i = 0; i < group.size(); ++i) by_rank.emplace_back(group[i], static_cast<int>(i));
  std::sort(by_rank.begin(), by_rank.end());
  std::vector<int> positions;
  for (int rank : ordered)
    positions.push_back(std::lower_bound(by_rank.begin(), by_rank.end(), std::pair{rank, -1})->second);
  return positions;
}

/// Requests for a collective over any device group — data-parallel, tensor-parallel, ZeRO and
/// pipeline groups alike, members in ring order: the scenario's algorithm resolved for this
/// operation, size and group (nccl: NCCL's tuner; best: the fastest simulated candidate on a group
/// of the same shape; an explicit algorithm where it can run, else nccl's choice), carried out with
/// the platform's figures and recorded in `log`.
class GroupRequests {
public:
  GroupRequests(const topology::ClusterTopology& cluster, const config::ScenarioSpec& scenario,
                std::shared_ptr<collectives::CollectiveLog> log)
      : cluster_(cluster), algorithm_(scenario.collectives.algorithm), fidelity_(scenario.collectives.fidelity),
        log_(std::move(log)), tables_(std::make_shared<std::map<std::vector<int>, TuningTable>>()) {}

  /// A pure function of its arguments, asked again for every layer and micro-batch, so remembered.
  collectives::CollectiveRequest operator()(config::CollectiveOp op, const std::vector<int>& group,
                                            double bytes) const {
    RequestKey key{op, bytes, group};
    if (const auto it = requests_->find(key); it != requests_->end()) return it->second;
    // Built before it is stored: a request that throws leaves nothing behind.
    const auto members = in_ring_order(cluster_, group);
    auto request = make_request(cluster_, op, members, bytes, choice(op, members, bytes), fidelity_);
    request.log = log_;
    if (members != group) request.caller_index = caller_positions(group, members);
    return requests_->emplace(std::move(key), std::move(request)).first->second;
  }

private:
  /// The algorithm, protocol and channels for `op` of `bytes` over `members`.
  CollectivePlanChoice choice(config::CollectiveOp op, const std::vector<int>& members, double bytes) const {
    CollectivePlanChoice choice;
    if (algorithm_.is_best() && members.size() > 1) {
      const auto best = best_table(op, members).select(op, bytes);
      choice = choose_collective(cluster_, op, members, bytes, best.algorithm, best.protocol);
    } else {
      choice = choose_collective(cluster_, op, members, bytes,
                                 algorithm_.is_best() ? config::CollectiveAlgorithm::nccl()
                                                                                 : algorithm_);
    }
    return choice;
  }

  /// Best's table for groups shaped like `members`, simulated once on such a group on the first nodes.
  const TuningTable& best_table(config::CollectiveOp op, const std::vector<int>& members) const {
    std::vector<int> shape;
    const int first_node = cluster_.node_of(members.front());
    for (int m : members)
      shape.push_back((cluster_.node_of(m) - first_node) * cluster_.devices_per_node() + cluster_.local_index(m));
    auto& table = (*tables_)[shape];
    if (!table.covers(op)) {
      const auto fidelity = static_cast<int>(shape.size()) > kStepTuningMaxRanks ? config::Fidelity::Fluid : fidelity_;
      table.merge(cached_tuning_table(cluster_, shape, fidelity, {op}));
    }
    return table;
  }

  const topology::ClusterTopology& cluster_;
  config::CollectiveAlgorithm algorithm_;
  config::Fidelity fidelity_;
  std::shared_ptr<collectives::CollectiveLog> log_;
  std::shared_ptr<std::map<std::vector<int>, TuningTable>> tables_;  // shared by copies of the function
  using RequestKey = std::tuple<config::CollectiveOp, double, std::vector<int>>;  // (op, bytes, group as given)
  std::shared_ptr<std::map<RequestKey, collectives::CollectiveRequest>> requests_ =
      std::make_shared<std::map<RequestKey, collectives::CollectiveRequest>>();
};


parallel::PlanOptions plan_options(const config::ScenarioSpec& scenario) {
  parallel::PlanOptions options;
  // Fluid collectives are chosen for large runs: one op per model chunk keeps the event count low.
  // Not under ZeRO-3, whose units gather, prefetch and reduce block by block (FSDP).
  options.fuse_chunk_layers = scenario.granularity == config::Granularity::Chunk ||
                              (scenario.granularity == config::Granularity::Auto &&
                               scenario.collectives.fidelity == config::Fidelity::Fluid &&
                               scenario.parallelism.zero_stage < 3);
  return options;
}

/// The step of `scenario`: planned from its model, or imported from its Chakra traces.
parallel::StepPlan plan_or_import(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
                                  const parallel::GroupCollectives& collectives, const parallel::PlanOptions& options) {
  if (config::workload_traits(scenario.workload.type).imported_programs)
    return interop::import_chakra(scenario, costs, collectives);
  return parallel::plan_step(scenario, costs, collectives, options);
}

}  // namespace

parallel::GroupCollectives group_collectives(const topology::ClusterTopology& cluster,
                                             const config::ScenarioSpec& scenario,
                                             std::shared_ptr<collectives::CollectiveLog> log) {
  parallel::GroupCollectives c;
  c.endpoints = cluster.endpoint_count();
  c.request = GroupRequests(cluster, scenario, std::move(log));
  return c;
}

ScenarioPlan plan_scenario(const config::ScenarioSpec& scenario) {
  ScenarioPlan plan;
  plan.collectives = std::make_shared<collectives::CollectiveLog>();
  const auto topology = topology::ClusterTopology::build(scenario.platform);
  const kernels::BlockedGemmModel costs(scenario.platform.accelerator);
  plan.step = plan_or_import(scenario, costs, group_collectives(topology, scenario, plan.collectives),
                             plan_options(scenario));
  return plan;
}

ScenarioRun run_scenario(const config::ScenarioSpec& scenario, const RunOptions& run_options) {
  ScenarioRun run;
  PhaseTimer phases;
  const auto phase = [&](std::string name, std::uint64_t expected) {
    if (run_options.watch) run_options.watch->phase(std::move(name), expected);
  };
  if (run_options.max_memory_bytes) check_memory(estimate_floor(scenario), *run_options.max_memory_bytes);
  phase("building the platform", 0);
  run.collectives = std::make_shared<collectives::CollectiveLog>();
  const auto topology = topology::ClusterTopology::build(scenario.platform);
  const kernels::BlockedGemmModel costs(scenario.platform.accelerator);
  const parallel::PlanOptions options = plan_options(scenario);
  phase("planning", 0);
  run.step = plan_or_import(scenario, costs, group_collectives(topology, scenario, run.collectives), options);
  const double planning_s = phases.mark("planned");
  if (run_options.replay.progress && planning_s >= kSlowPlanning_s)
    std::fprintf(stderr, "clearfog: planned %llu ops on %d ranks in %.0f s\n",
                 static_cast<unsigned long long>(run.step.plan.op_count()), run.step.plan.rank_count(), planning_s);
  const int shared = program::share_identical_ops(run.step.plan);
  phases.mark("identical programs shared");
  spdlog::debug("{} of {} ranks share another rank's ops", shared, run.step.plan.rank_count());
  const auto& deadline = run_options.replay.deadline;
  if (deadline && std::chrono::steady_clock::now() > *deadline)
    throw SimulationError("stopped by --timeout while planning, before the replay started");
  spdlog::debug("planned {} ranks, {} gradient buckets, {} collectives", run.step.plan.rank_count(),
                run.step.buckets.size(), run.collectives->records().size());
  const ResourceEstimate estimate = estimate_plan(run.step.plan);
  spdlog::info("plan: {} ops, {} messages, ~{} estimated", estimate.ops, estimate.messages,
               config::memory_text(estimate.bytes()));
  if (run_options.max_memory_bytes) check_memory(estimate, *run_options.max_memory_bytes);
  phase("simulating", estimate.ops + estimate.messages);
  run.simulation = run_options.legacy_replay ? engine::simulate_legacy(topology, run.step.plan)
                                             : engine::simulate(topology, run.step.plan, run_options.replay);
  phases.mark("simulated");
  run.metrics = report::compute_step_metrics(scenario, run.step, run.simulation);
  phases.mark("metrics");
  return run;
}

}  // namespace clearfog::driver
