#include "topology/RingOrder.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>

#include "topology/RingFamily.hpp"
#include "topology/NodeTopologyType.hpp"
#include "topology/nodes/TorusNode.hpp"

namespace clearfog::topology {
namespace {

// Backtracking gives up after this many extensions at one bandwidth threshold (then tries the
// next lower one): a guard against pathological custom graphs, far above what 16 devices of the
// shipped kinds need.
constexpr long kSearchBudget = 2'000'000;

}  // namespace

std::vector<int> torus_snake_order(const std::vector<int>& dims) {
  // Build the order one dimension at a time: the order of dimensions 0..i-1 is walked forwards on
  // even coordinates of dimension i and backwards on odd ones.
  std::vector<std::vector<int>> coords{{}};
  for (int extent : dims) {
    std::vector<std::vector<int>> longer;
    for (int c = 0; c < extent; ++c) {
      auto emit = [&](const std::vector<int>& lower) {
        auto coord = lower;
        coord.push_back(c);
        longer.push_back(std::move(coord));
      };
      if (c % 2 == 0)
        std::for_each(coords.begin(), coords.end(), emit);
      else
        std::for_each(coords.rbegin(), coords.rend(), emit);
    }
    coords = std::move(longer);
  }
  std::vector<int> order;
  order.reserve(coords.size());
  for (const auto& coord : coords) order.push_back(nodes::torus_device_index(dims, coord));
  return order;
}

std::vector<int> ring_order(const TopologyGraph& graph, const config::NodeSpec& node) {
  const int n = graph.device_count();
  std::vector<int> index_order(n);
  std::iota(index_order.begin(), index_order.end(), 0);
  if (n <= 2) return index_order;

  if (n <= kRingSearchMaxDevices) {
    std::vector<std::vector<double>> width(n, std::vector<double>(n, 0.0));
    std::set<double, std::greater<>> thresholds;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        if (a != b && (width[a][b] = graph.direct_bandwidth_Bps(a, b)) > 0) thresholds.insert(width[a][b]);
    // The widest threshold at which a cycle exists is the best bottleneck.
    for (double threshold : thresholds)
      if (auto cycle = hamiltonian_cycle(width, threshold, kSearchBudget); !cycle.empty()) return cycle;
  }
  return node_topology_type(node.topology).ring_order(node).value_or(index_order);
}

}  // namespace clearfog::topology
