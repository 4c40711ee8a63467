#include "driver/ScenarioRun.hpp"

#include <spdlog/spdlog.h>

#include <map>
#include <mutex>

#include "driver/CollectiveRun.hpp"
#include "driver/TuningTable.hpp"
#include "engine/Replay.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "parallel/ParallelPlanner.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::driver {
namespace {

/// Above this many ranks, best simulates its candidates at fluid fidelity: step fidelity costs
/// O(P^2) events per candidate.
constexpr int kStepTuningMaxRanks = 64;

/// Requests for a collective over any device group — data-parallel, tensor-parallel, ZeRO and
/// pipeline groups alike: the scenario's algorithm resolved for this operation, size and group
/// (nccl: NCCL's tuner; best: the fastest simulated candidate on a group of the same shape; an
/// explicit algorithm where it can run, else nccl's choice), carried out with the platform's
/// figures and recorded in `log`.
class GroupRequests {
public:
  GroupRequests(const topology::ClusterTopology& cluster, const config::ScenarioSpec& scenario,
                std::shared_ptr<collectives::CollectiveLog> log)
      : cluster_(cluster), algorithm_(scenario.collectives.algorithm), fidelity_(scenario.collectives.fidelity),
        log_(std::move(log)) {}

  collectives::CollectiveRequest operator()(config::CollectiveOp op, const std::vector<int>& members,
                                            double bytes) const {
    CollectivePlanChoice choice;
    if (algorithm_ == config::CollectiveAlgorithm::Best && members.size() > 1) {
      const auto best = best_table(op, members).select(op, bytes);
      choice = choose_collective(cluster_, op, members, bytes, best.algorithm, best.protocol);
    } else {
      choice = choose_collective(cluster_, op, members, bytes,
                                 algorithm_ == config::CollectiveAlgorithm::Best ? config::CollectiveAlgorithm::Nccl
                                                                                 : algorithm_);
    }
    auto request = make_request(cluster_, op, members, bytes, choice, fidelity_);
    request.log = log_;
    return request;
  }

private:
  /// Best's table for groups shaped like `members`, simulated once on such a group on the first nodes.
  const TuningTable& best_table(config::CollectiveOp op, const std::vector<int>& members) const {
    std::vector<int> shape;
    const int first_node = cluster_.node_of(members.front());
    for (int m : members) shape.push_back((cluster_.node_of(m) - first_node) * cluster_.devices_per_node() +
                                          cluster_.local_index(m));
    auto& table = tables_[shape];
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
  mutable std::map<std::vector<int>, TuningTable> tables_;
};

/// Collectives over any device group (tensor, data-parallel, ZeRO and pipeline groups).
parallel::GroupCollectives group_collectives(const topology::ClusterTopology& cluster,
                                             const config::ScenarioSpec& scenario,
                                             std::shared_ptr<collectives::CollectiveLog> log) {
  parallel::GroupCollectives c;
  c.endpoints = cluster.endpoint_count();
  c.request = GroupRequests(cluster, scenario, std::move(log));
  return c;
}

/// Gradient all-reduces over the data-parallel group: the same requests as every other group.
parallel::GradientReduction gradient_reduction(const parallel::GroupCollectives& groups,
                                               const topology::ClusterTopology& cluster,
                                               const config::ScenarioSpec& scenario) {
  parallel::GradientReduction r;
  r.endpoints = groups.endpoints;
  r.members = collective_members(cluster, scenario.parallelism.dp);
  r.request = [request = groups.request, members = r.members](double bytes) {
    return request(config::CollectiveOp::AllReduce, members, bytes);
  };
  return r;
}

/// The data-parallel planner (bucketed all-reduces overlapped with backward) covers plain data
/// parallelism exactly; its collectives come from the same GroupCollectives as the 3D planner's.
bool plain_data_parallel(const config::ScenarioSpec& s) {
  const auto& p = s.parallelism;
  return p.tp == 1 && p.pp == 1 && p.zero_stage == 0 && s.training.recompute == config::Recompute::None &&
         s.training.overlap_grad_reduce && s.training.grad_accumulation_fusion;
}

}  // namespace

ScenarioRun run_scenario(const config::ScenarioSpec& scenario) {
  ScenarioRun run;
  run.collectives = std::make_shared<collectives::CollectiveLog>();
  const auto topology = topology::ClusterTopology::build(scenario.platform);
  const kernels::BlockedGemmModel costs(scenario.platform.accelerator);
  const auto groups = group_collectives(topology, scenario, run.collectives);
  if (plain_data_parallel(scenario)) {
    run.step = parallel::plan_data_parallel_step(scenario, costs, gradient_reduction(groups, topology, scenario));
  } else {
    parallel::ParallelPlanOptions options;
    // Fluid collectives are chosen for large runs: one op per model chunk keeps the event count low.
    options.fuse_chunk_layers = scenario.granularity == config::Granularity::Chunk ||
                                (scenario.granularity == config::Granularity::Auto &&
                                 scenario.collectives.fidelity == config::Fidelity::Fluid);
    run.step = parallel::plan_parallel_step(scenario, costs, groups, options);
  }
  spdlog::debug("planned {} ranks, {} gradient buckets, {} collectives", run.step.plan.rank_count(),
                run.step.buckets.size(), run.collectives->records().size());
  run.simulation = engine::simulate(topology, run.step.plan);
  run.metrics = report::compute_step_metrics(scenario, run.step, run.simulation);
  return run;
}

}  // namespace clearfog::driver
