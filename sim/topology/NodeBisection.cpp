#include "topology/NodeBisection.hpp"

#include <boost/graph/push_relabel_max_flow.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

namespace clearfog::topology {
namespace {

// Integer capacities (B/s, rounded) keep push-relabel exact: bandwidths are far below 2^63.
using Capacity = std::int64_t;
using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, Capacity,
                    boost::property<boost::edge_residual_capacity_t, Capacity,
                                    boost::property<boost::edge_reverse_t, FlowTraits::edge_descriptor>>>>;

/// Adds u->v and v->u, each other's reverse edge, with the given capacities.
void add_arc_pair(FlowGraph& g, std::size_t u, std::size_t v, Capacity forward, Capacity backward) {
  auto capacity = boost::get(boost::edge_capacity, g);
  auto reverse = boost::get(boost::edge_reverse, g);
  const auto e = boost::add_edge(u, v, g).first;
  const auto r = boost::add_edge(v, u, g).first;
  capacity[e] = forward;
  capacity[r] = backward;
  reverse[e] = r;
  reverse[r] = e;
}

bool next_combination(std::vector<int>& chosen, int n) {
  const int k = static_cast<int>(chosen.size());
  for (int i = k - 1; i >= 0; --i) {
    if (chosen[i] < n - k + i) {
      ++chosen[i];
      for (int j = i + 1; j < k; ++j) chosen[j] = chosen[j - 1] + 1;
      return true;
    }
  }
  return false;
}

}  // namespace

double min_cut_Bps(const TopologyGraph& graph, const std::vector<int>& side_a, const std::vector<int>& side_b) {
  const std::size_t n = boost::num_vertices(graph.graph());
  FlowGraph flow(n + 2);
  const std::size_t source = n;
  const std::size_t sink = n + 1;
  Capacity total = 0;
  for (const Link& l : graph.links()) {
    // An undirected link of capacity c each way: two arcs that are each other's reverse.
    const auto c = static_cast<Capacity>(std::llround(l.bandwidth_Bps));
    add_arc_pair(flow, l.from, l.to, c, c);
    total += c;
  }
  const Capacity unbounded = total + 1;
  for (int d : side_a) add_arc_pair(flow, source, graph.device_vertex(d), unbounded, 0);
  for (int d : side_b) add_arc_pair(flow, graph.device_vertex(d), sink, unbounded, 0);
  return static_cast<double>(boost::push_relabel_max_flow(flow, source, sink));
}

Bisection node_bisection(const TopologyGraph& graph, const config::NodeSpec& node) {
  const int n = graph.device_count();
  if (n < 2) return {0, "one device"};
  if (n <= kBisectionEnumerationMaxDevices) {
    // Halves of size n/2 (rounded down); when n is even, fixing device 0 on one side visits each
    // split once instead of twice.
    const int half = n / 2;
    std::vector<int> chosen(half);
    std::iota(chosen.begin(), chosen.end(), 0);
    double least = std::numeric_limits<double>::infinity();
    long splits = 0;
    do {
      if (n % 2 == 0 && chosen[0] != 0) break;
      std::vector<int> other;
      for (int d = 0, k = 0; d < n; ++d) {
        if (k < half && chosen[k] == d)
          ++k;
        else
          other.push_back(d);
      }
      least = std::min(least, min_cut_Bps(graph, chosen, other));
      ++splits;
    } while (next_combination(chosen, n));
    return {least, fmt::format("exact: min cut over {} balanced splits", splits)};
  }
  if (auto closed = node_topology_type(node.topology).bisection(node)) return *closed;
  std::vector<int> first(static_cast<std::size_t>(n / 2));
  std::iota(first.begin(), first.end(), 0);
  std::vector<int> second(static_cast<std::size_t>(n - n / 2));
  std::iota(second.begin(), second.end(), n / 2);
  return {min_cut_Bps(graph, first, second), "upper bound: min cut between the first and second half by index"};
}

}  // namespace clearfog::topology
