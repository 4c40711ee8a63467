#pragma once
// Small facts about a node graph that several topology tests check.
#include <algorithm>
#include <numeric>
#include <vector>

#include "topology/TopologyGraph.hpp"

namespace clearfog::test {

/// Number of links at a device.
inline int degree(const topology::TopologyGraph& t, int device) {
  return static_cast<int>(boost::out_degree(t.device_vertex(device), t.graph()));
}

/// Vertices a route visits, source first.
inline std::vector<topology::Vertex> route_vertices(const topology::TopologyGraph& t, int from, int to) {
  std::vector<topology::Vertex> path{t.device_vertex(from)};
  for (const topology::Hop& h : t.route(from, to)) {
    const topology::Link& l = t.links()[h.edge_index];
    path.push_back(h.forward ? l.to : l.from);
  }
  return path;
}

/// A permutation of 0 … n-1 whose consecutive devices, the last and the first included, are
/// directly linked.
inline bool is_ring_of_direct_links(const topology::TopologyGraph& t, const std::vector<int>& order) {
  const int n = t.device_count();
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  if (sorted != all) return false;
  for (int i = 0; i < n; ++i)
    if (t.direct_bandwidth_Bps(order[i], order[(i + 1) % n]) <= 0) return false;
  return true;
}

}  // namespace clearfog::test
