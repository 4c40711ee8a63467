#include "cluster/JobPlacement.hpp"

#include <fmt/format.h>

#include <numeric>

#include "core/Errors.hpp"

namespace clearfog::cluster {
namespace {

[[noreturn]] void refuse(std::size_t job, const std::string& message) {
  throw ConfigError({{{"cluster", 0, 0}, fmt::format("jobs[{}]", job), message}});
}

/// Takes the explicit nodes of every job that lists them; returns which nodes are taken.
std::vector<char> take_explicit(const std::vector<JobRequest>& jobs, int cluster_nodes,
                                std::vector<std::vector<int>>& out) {
  std::vector<char> taken(static_cast<std::size_t>(cluster_nodes), 0);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const auto& nodes = jobs[j].nodes;
    if (nodes.empty()) continue;
    if (static_cast<int>(nodes.size()) != jobs[j].node_count)
      refuse(j, fmt::format("lists {} nodes for a job of {}", nodes.size(), jobs[j].node_count));
    for (const int n : nodes) {
      if (n < 0 || n >= cluster_nodes)
        refuse(j, fmt::format("node {} is outside the cluster's nodes 0 … {}", n, cluster_nodes - 1));
      if (taken[static_cast<std::size_t>(n)]) refuse(j, fmt::format("node {} is already given to a job", n));
      taken[static_cast<std::size_t>(n)] = 1;
    }
    out[j] = nodes;
  }
  return taken;
}

}  // namespace

std::vector<std::vector<int>> place_jobs(const std::vector<JobRequest>& jobs, int cluster_nodes, Placement policy) {
  std::vector<std::vector<int>> out(jobs.size());
  const int needed = std::accumulate(jobs.begin(), jobs.end(), 0,
                                     [](int sum, const JobRequest& j) { return sum + j.node_count; });
  if (needed > cluster_nodes)
    throw ConfigError({{{"cluster", 0, 0}, "jobs",
                        fmt::format("the jobs need {} nodes; the platform has {}", needed, cluster_nodes)}});
  std::vector<char> taken = take_explicit(jobs, cluster_nodes, out);
  std::vector<int> free;
  for (int n = 0; n < cluster_nodes; ++n)
    if (!taken[static_cast<std::size_t>(n)]) free.push_back(n);
  std::size_t next = 0;
  if (policy == Placement::Packed) {
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (jobs[j].nodes.empty())
        for (int k = 0; k < jobs[j].node_count; ++k) out[j].push_back(free[next++]);
    return out;
  }
  // Spread: one node per job still short, in turn.
  for (bool dealt = true; dealt;) {
    dealt = false;
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (jobs[j].nodes.empty() && static_cast<int>(out[j].size()) < jobs[j].node_count) {
        out[j].push_back(free[next++]);
        dealt = true;
      }
  }
  return out;
}

}  // namespace clearfog::cluster
