#include "driver/ScenarioRun.hpp"

#include <spdlog/spdlog.h>

#include "core/Errors.hpp"
#include "core/PhaseTimer.hpp"
#include "driver/CollectiveRun.hpp"
#include "driver/ProtocolChoice.hpp"
#include "driver/TuningTable.hpp"
#include "engine/LegacyReplay.hpp"
#include "engine/Replay.hpp"
#include "parallel/ParallelPlanner.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::driver {
namespace {

/// Above this many ranks, auto-tuning simulates candidates at fluid fidelity: step fidelity costs
/// O(P^2) events per candidate.
constexpr int kStepTuningMaxRanks = 64;

/// Gradient all-reduces over the data-parallel group, with the scenario's algorithm (or the
/// tuning table's choice for `auto`) and the fastest protocol the platform offers for it.
parallel::GradientReduction gradient_reduction(const topology::ClusterTopology& cluster,
                                               const config::ScenarioSpec& scenario) {
  const int dp = scenario.parallelism.dp;
  parallel::GradientReduction r;
  r.endpoints = cluster.endpoint_count();
  r.members = collective_members(cluster, dp);
  if (dp < 2) {
    r.request = [members = r.members](double bytes) {
      collectives::CollectiveRequest q;
      q.ranks = members;
      q.bytes = bytes;
      return q;
    };
    return r;
  }
  const auto fidelity = scenario.collectives.fidelity;
  const auto tuning_fidelity = dp > kStepTuningMaxRanks ? config::Fidelity::Fluid : fidelity;
  auto table = std::make_shared<TuningTable>(
      cached_tuning_table(cluster, dp, tuning_fidelity, {config::CollectiveOp::AllReduce}));
  const auto algorithm = scenario.collectives.algorithm;
  r.request = [&cluster, table, algorithm, fidelity, dp, members = r.members](double bytes) {
    const auto choice = table->select(config::CollectiveOp::AllReduce, bytes,
                                      algorithm == config::CollectiveAlgorithm::Auto
                                          ? std::nullopt
                                          : std::optional<config::CollectiveAlgorithm>(algorithm));
    config::CollectiveProtocol protocol;
    for (const auto& p : cluster.platform().collectives.protocols())
      if (p.name == choice.protocol) protocol = p;
    return make_request(cluster, {config::CollectiveOp::AllReduce, choice.algorithm, protocol, fidelity, dp, bytes},
                        members);
  };
  return r;
}

/// Collectives over any device group (tensor, data-parallel and ZeRO groups): the scenario's
/// algorithm where it implements the operation, else ring; the protocol with the least closed-form
/// ring time for the group and size (fastest_protocol).
parallel::GroupCollectives group_collectives(const topology::ClusterTopology& cluster,
                                             const config::ScenarioSpec& scenario) {
  parallel::GroupCollectives c;
  c.endpoints = cluster.endpoint_count();
  const auto algorithm = scenario.collectives.algorithm;
  const auto fidelity = scenario.collectives.fidelity;
  c.request = [&cluster, algorithm, fidelity](config::CollectiveOp op, const std::vector<int>& members,
                                              double bytes) {
    const auto protocol = fastest_protocol(cluster, op, members, bytes);
    auto chosen = config::CollectiveAlgorithm::Ring;
    if (algorithm != config::CollectiveAlgorithm::Auto && collectives::supports(op, algorithm)) chosen = algorithm;
    if (chosen == config::CollectiveAlgorithm::Hierarchical || chosen == config::CollectiveAlgorithm::InSwitch)
      chosen = config::CollectiveAlgorithm::Ring;  // need node-aligned groups
    return make_request(cluster, {op, chosen, protocol, fidelity, static_cast<int>(members.size()), bytes}, members);
  };
  return c;
}

/// The data-parallel planner (with its tuned all-reduces) covers plain data parallelism exactly.
bool plain_data_parallel(const config::ScenarioSpec& s) {
  const auto& p = s.parallelism;
  return p.tp == 1 && p.pp == 1 && p.zero_stage == 0 && s.training.recompute == config::Recompute::None &&
         s.training.overlap_grad_reduce && s.training.grad_accumulation_fusion;
}

}  // namespace

ScenarioRun run_scenario(const config::ScenarioSpec& scenario, const RunOptions& run_options) {
  ScenarioRun run;
  PhaseTimer phases;
  const auto topology = topology::ClusterTopology::build(scenario.platform);
  const kernels::BlockedGemmModel costs(scenario.platform.accelerator);
  if (plain_data_parallel(scenario)) {
    run.step = parallel::plan_data_parallel_step(scenario, costs, gradient_reduction(topology, scenario));
  } else {
    parallel::ParallelPlanOptions options;
    // Fluid collectives are chosen for large runs: one op per model chunk keeps the event count low.
    options.fuse_chunk_layers = scenario.granularity == config::Granularity::Chunk ||
                                (scenario.granularity == config::Granularity::Auto &&
                                 scenario.collectives.fidelity == config::Fidelity::Fluid);
    run.step = parallel::plan_parallel_step(scenario, costs, group_collectives(topology, scenario), options);
  }
  phases.mark("planned");
  const int shared = program::share_identical_ops(run.step.plan);
  phases.mark("identical programs shared");
  spdlog::debug("{} of {} ranks share another rank's ops", shared, run.step.plan.rank_count());
  const auto& deadline = run_options.replay.deadline;
  if (deadline && std::chrono::steady_clock::now() > *deadline)
    throw SimulationError("stopped by --timeout while planning, before the replay started");
  spdlog::debug("planned {} ranks, {} gradient buckets", run.step.plan.rank_count(), run.step.buckets.size());
  run.simulation = run_options.legacy_replay ? engine::simulate_legacy(topology, run.step.plan)
                                             : engine::simulate(topology, run.step.plan, run_options.replay);
  phases.mark("simulated");
  run.metrics = report::compute_step_metrics(scenario, run.step, run.simulation);
  phases.mark("metrics");
  return run;
}

}  // namespace clearfog::driver
