#pragma once
// `clearfog cluster FILE`: the jobs of a cluster file planned each on its own, merged into one plan
// on the shared machine (program::merge_plans) and replayed together, so that their messages share
// links under the max-min model; then each job replayed alone on the same nodes, for its slowdown.
// docs/cluster.md.
#include <functional>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "engine/ReplayOptions.hpp"
#include "cluster/ClusterFile.hpp"

namespace clearfog::cluster {

struct ClusterJobResult {
  std::string name;
  std::string scenario;      // the scenario's name
  std::vector<int> nodes;    // in the job's rank order
  int devices = 0;
  double start_s = 0;
  double samples_per_iteration = 0;      // the global batch
  std::vector<double> iteration_s;       // together: end of iteration k minus end of k-1 (or the start)
  std::vector<double> alone_iteration_s; // the same job alone on the same nodes
  [[nodiscard]] double mean_s() const;
  [[nodiscard]] double alone_mean_s() const;
  [[nodiscard]] double slowdown() const { return mean_s() / alone_mean_s(); }
};

struct ClusterResult {
  std::string name;
  std::string platform;
  int nodes = 0;
  int devices = 0;
  Placement placement = Placement::Packed;
  std::vector<ClusterJobResult> jobs;
  double makespan_s = 0;          // when the last job's last iteration ended
  std::uint64_t ops = 0;          // ops of the joint replay
  std::uint64_t messages = 0;
};

/// How run_cluster simulates and says what it is doing.
struct ClusterRunOptions {
  engine::ReplayOptions replay;  // every simulation (max_memory_B: --max-memory)
  /// Told what is about to be planned or simulated ("simulating job b (2 of 3) alone"); may be empty.
  std::function<void(const std::string&)> progress;
};

/// Runs every simulation in forked children (one joint, one per job alone). Throws ConfigError for
/// a bad file or scenario, SimulationError if a replay deadlocks, BudgetError over --max-memory.
ClusterResult run_cluster(const ClusterSpec& spec, const ClusterRunOptions& options = {});

std::string render_cluster_text(const ClusterResult& result);
nlohmann::json cluster_json(const ClusterResult& result);

}  // namespace clearfog::cluster
