#pragma once
// A cluster run (`kind: cluster`, `clearfog cluster`, docs/cluster.md): several training jobs, each
// a scenario, on whole nodes of one platform, simulated together so that their traffic shares the
// fabric.
//
//   kind: cluster
//   name: two-jobs
//   platform: ../../platforms/dgx-a100-cluster.yaml   # the shared machine, relative to the file
//   placement: packed                 # packed | spread: where jobs without explicit nodes go
//   set: {fabric.fat_tree.up: [1, 4]} # optional: overrides of the shared machine (not of the jobs' plans)
//   jobs:
//     - scenario: ../gpt-1.3b-16gpu.yaml   # its platform becomes the cluster's, resized to the job
//       nodes: 2                      # how many nodes, or which: [0, 5]
//       name: a                       # optional: default "job<i>"
//       start: 20 ms                  # optional: when its first iteration starts (default 0 s)
//       iterations: 2                 # optional (default 1)
//       set: {training.micro_batch: 2}   # optional: scenario overrides, as run --set
#include <filesystem>
#include <string>
#include <vector>

#include "config/Override.hpp"
#include "config/PlatformSpec.hpp"
#include "config/ScenarioSpec.hpp"
#include "core/Errors.hpp"
#include "cluster/JobPlacement.hpp"

namespace clearfog::cluster {

struct ClusterJob {
  std::string name;
  std::filesystem::path scenario;
  JobRequest request;  // node count and explicit nodes
  double start_s = 0;
  int iterations = 1;
  std::vector<config::Override> set;
  SourceLocation location;  // of the job's entry, for errors found later
};

struct ClusterSpec {
  std::string name;
  std::string description;
  std::filesystem::path platform;
  Placement placement = Placement::Packed;
  std::vector<config::Override> platform_set;  // `set:`: overrides of the shared machine only
  std::vector<ClusterJob> jobs;
  SourceLocation jobs_location;  // of the `jobs:` list, for problems of the jobs together
};

/// Reads a cluster file; throws ConfigError with every problem located (file:line:col).
ClusterSpec load_cluster_file(const std::filesystem::path& file);

/// Job `j`'s scenario as it runs in the cluster: the cluster's platform resized to the job's nodes,
/// then the job's overrides. Throws ConfigError as load_scenario does.
config::ScenarioSpec load_job_scenario(const ClusterSpec& spec, std::size_t j);

/// The nodes of every job (place_jobs on the cluster's platform), with problems located at the
/// job's entry.
std::vector<std::vector<int>> place_cluster_jobs(const ClusterSpec& spec, int cluster_nodes);

/// The shared machine: the platform file with the file's `set:`.
config::PlatformSpec load_cluster_platform(const ClusterSpec& spec);

/// What `clearfog validate` checks: the file, the placement and every job's scenario.
void check_cluster(const ClusterSpec& spec);

}  // namespace clearfog::cluster
