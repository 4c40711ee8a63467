#pragma once
// `clearfog shard`: choosing a DLRM's embedding-table sharding. The greedy planner's pick
// (workload/types/DlrmGreedySharder.hpp, which simulates nothing), a few uniform baselines (every
// table table-wise, row-wise, column-wise or data parallel, and the plan as written) and, on request,
// every plan of the exhaustive space (DlrmShardPlan.hpp) are simulated, each in its own child
// process, and ranked by step time; the result says whether the pick was the fastest and why the
// winner wins (lookup balance, all-to-all volume, memory). docs/dlrm.md, "Choosing the sharding".
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/ScenarioSpec.hpp"
#include "topology/ClusterTopology.hpp"
#include "workload/types/DlrmShardCost.hpp"
#include "workload/types/DlrmShardPlan.hpp"

namespace clearfog::shard {

struct ShardSearchRequest {
  config::ScenarioSpec scenario;     // a dlrm workload
  bool exhaustive = false;
  std::uint64_t max_plans = 1000;    // of the exhaustive space
  int jobs = 1;
};

struct ShardCandidate {
  std::string origin;                // "greedy pick", "as written", "table-wise", ..., "exhaustive"
  workload::ShardPlan plan;
  std::string plan_text;
  workload::ShardEstimate estimate;  // the planner's estimate, without simulation
  std::string status = "error";      // ok, oom (simulated, does not fit), error
  std::string message;               // why it failed (error)
  double step_s = 0;                 // simulated
  double embedding_comm_s = 0;       // simulated all-to-all time the compute stream waited for
  double memory_B = 0;               // the memory estimate of the busiest device
};

struct ShardSearchResult {
  std::string scenario;
  int group = 0;                     // devices the tables are sharded over
  bool exhaustive = false;
  std::uint64_t exhaustive_plans = 0;  // size of the space (searched or not)
  std::vector<ShardCandidate> ranked;  // ok by step time, then oom by step time, then errors
  std::size_t pick = 0;              // index in `ranked` of the greedy pick

  /// Whether the pick's step time equals the fastest one's (within 1e-6, the rounding of plans that
  /// differ by a renaming of devices).
  [[nodiscard]] bool pick_is_best() const;
  /// pick step / best step - 1 (0 when the pick is the best).
  [[nodiscard]] double pick_slowdown() const;
};

/// The estimator's inputs for `scenario` (group, batch, precision, bandwidths, memory, the Simple
/// protocol's figures for all-to-alls, and group collectives priced as the collective layer would
/// choose them on `cluster`). The result refers to `costs` and `cluster`: keep them alive.
workload::ShardCostInputs shard_cost_inputs(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
                                            const topology::ClusterTopology& cluster);

/// A plan count as text ("more than 1.8e19" where the count saturated).
std::string space_size_text(std::uint64_t plans);

/// Throws ConfigError (at --max-plans) when an exhaustive search would exceed request.max_plans,
/// clearfog::Error when the workload is not a dlrm.
ShardSearchResult search_shardings(const ShardSearchRequest& request);

nlohmann::ordered_json shard_search_json(const ShardSearchResult& result);

/// The ranking (the first `top` plans and the pick), the winner's plan and why it beats the
/// runner-up and the pick.
std::string render_shard_search(const ShardSearchResult& result, std::size_t top);

}  // namespace clearfog::shard
