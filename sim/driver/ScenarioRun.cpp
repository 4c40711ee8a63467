#include "driver/ScenarioRun.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "driver/CollectiveRun.hpp"
#include "driver/ProtocolChoice.hpp"
#include "driver/ResourceEstimate.hpp"
#include "driver/TuningTable.hpp"
#include "config/ScaleLimits.hpp"
#include "engine/Replay.hpp"
#include "parallel/StepPlanner.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::driver {
namespace {

/// Above this many ranks, auto-tuning simulates candidates at fluid fidelity: step fidelity costs
/// O(P^2) events per candidate.
constexpr int kStepTuningMaxRanks = 64;

/// `members` in the order the platform's ring visits them (rings follow the topology, as NCCL
/// builds them).
std::vector<int> in_ring_order(const topology::ClusterTopology& cluster, const std::vector<int>& members) {
  std::vector<int> position(static_cast<std::size_t>(cluster.endpoint_count()), 0);
  const auto& ring = cluster.ring_order();
  for (std::size_t i = 0; i < ring.size(); ++i) position[static_cast<std::size_t>(ring[i])] = static_cast<int>(i);
  std::vector<int> ordered = members;
  std::stable_sort(ordered.begin(), ordered.end(), [&](int a, int b) { return position[a] < position[b]; });
  return ordered;
}

/// Collectives over any device group (tensor, data-parallel and ZeRO groups), members in ring
/// order: the scenario's algorithm where it implements the operation, else ring; with `auto`, the
/// all-reduce over every device of a plain data-parallel run takes the tuning table's choice
/// (simulated candidates). The protocol is the one with the least closed-form ring time for the
/// group and size (fastest_protocol).
parallel::GroupCollectives group_collectives(const topology::ClusterTopology& cluster,
                                             const config::ScenarioSpec& scenario) {
  parallel::GroupCollectives c;
  c.endpoints = cluster.endpoint_count();
  const auto algorithm = scenario.collectives.algorithm;
  const auto fidelity = scenario.collectives.fidelity;
  const int dp = scenario.parallelism.dp;
  std::shared_ptr<TuningTable> table;
  if (algorithm == config::CollectiveAlgorithm::Auto && dp > 1 && dp == cluster.device_count()) {
    const auto tuning_fidelity = dp > kStepTuningMaxRanks ? config::Fidelity::Fluid : fidelity;
    table = std::make_shared<TuningTable>(
        cached_tuning_table(cluster, dp, tuning_fidelity, {config::CollectiveOp::AllReduce}));
  }
  c.request = [&cluster, algorithm, fidelity, table](config::CollectiveOp op, const std::vector<int>& members,
                                                     double bytes) {
    const auto ordered = in_ring_order(cluster, members);
    const int n = static_cast<int>(members.size());
    if (table && op == config::CollectiveOp::AllReduce && n == cluster.device_count()) {
      const auto choice = table->select(op, bytes, std::nullopt);
      config::CollectiveProtocol protocol;
      for (const auto& p : cluster.platform().collectives.protocols())
        if (p.name == choice.protocol) protocol = p;
      return make_request(cluster, {op, choice.algorithm, protocol, fidelity, n, bytes}, ordered);
    }
    const auto protocol = fastest_protocol(cluster, op, ordered, bytes);
    auto chosen = config::CollectiveAlgorithm::Ring;
    if (algorithm != config::CollectiveAlgorithm::Auto && collectives::supports(op, algorithm)) chosen = algorithm;
    if (chosen == config::CollectiveAlgorithm::Hierarchical || chosen == config::CollectiveAlgorithm::InSwitch)
      chosen = config::CollectiveAlgorithm::Ring;  // need node-aligned groups
    return make_request(cluster, {op, chosen, protocol, fidelity, n, bytes}, ordered);
  };
  return c;
}

}  // namespace

ScenarioRun run_scenario(const config::ScenarioSpec& scenario, const RunLimits& limits) {
  ScenarioRun run;
  const auto phase = [&](std::string name, std::uint64_t expected) {
    if (limits.watch) limits.watch->phase(std::move(name), expected);
  };
  if (limits.max_memory_bytes) check_memory(estimate_floor(scenario), *limits.max_memory_bytes);
  phase("building the platform", 0);
  const auto topology = topology::ClusterTopology::build(scenario.platform);
  const kernels::BlockedGemmModel costs(scenario.platform.accelerator);
  parallel::PlanOptions options;
  // Fluid collectives are chosen for large runs: one op per model chunk keeps the event count low.
  // Not under ZeRO-3, whose units gather, prefetch and reduce block by block (FSDP).
  options.fuse_chunk_layers = scenario.granularity == config::Granularity::Chunk ||
                              (scenario.granularity == config::Granularity::Auto &&
                               scenario.collectives.fidelity == config::Fidelity::Fluid &&
                               scenario.parallelism.zero_stage < 3);
  phase("planning", 0);
  run.step = parallel::plan_step(scenario, costs, group_collectives(topology, scenario), options);
  spdlog::debug("planned {} ranks, {} gradient buckets", run.step.plan.rank_count(), run.step.buckets.size());
  const ResourceEstimate estimate = estimate_plan(run.step.plan);
  spdlog::info("plan: {} ops, {} messages, ~{} estimated", estimate.ops, estimate.messages,
               config::memory_text(estimate.bytes()));
  if (limits.max_memory_bytes) check_memory(estimate, *limits.max_memory_bytes);
  phase("simulating", estimate.ops + estimate.messages);
  run.simulation = engine::simulate(topology, run.step.plan);
  run.metrics = report::compute_step_metrics(scenario, run.step, run.simulation);
  return run;
}

}  // namespace clearfog::driver
