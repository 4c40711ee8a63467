#pragma once
// Which nodes of a cluster each job of a cluster run gets (docs/cluster.md). Jobs get whole nodes.
//  - packed: in file order, each job the lowest free nodes (neighbours share leaf switches);
//  - spread: the free nodes dealt out one at a time to the jobs still short of nodes, in turn, so
//    every job spans the machine and their traffic meets in the fabric's upper levels;
//  - explicit: a job that lists its nodes gets those (placed before the others).
#include <string>
#include <string_view>
#include <vector>

namespace clearfog::cluster {

enum class Placement { Packed, Spread };

constexpr std::string_view placement_name(Placement p) { return p == Placement::Packed ? "packed" : "spread"; }

struct JobRequest {
  int node_count = 0;
  std::vector<int> nodes;  // explicit; empty: by the policy
};

/// The nodes of each job, in the job's rank order. Throws ConfigError (without a location: the
/// caller's file has it) when jobs need more nodes than `cluster_nodes`, an explicit list repeats a
/// node, names one outside [0, cluster_nodes) or one another job holds, or its length differs from
/// the job's node count.
std::vector<std::vector<int>> place_jobs(const std::vector<JobRequest>& jobs, int cluster_nodes, Placement policy);

}  // namespace clearfog::cluster
