#include "topology/TopologyGraph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/Errors.hpp"

namespace clearfog::topology {

Vertex TopologyGraph::add_vertex(VertexKind kind, std::string name, int device) {
  Vertex v = boost::add_vertex(VertexProps{kind, std::move(name), device}, graph_);
  if (kind == VertexKind::Device) devices_.push_back(v);
  return v;
}

void TopologyGraph::add_link(Vertex a, Vertex b, std::string name, double bandwidth_Bps, double latency_s) {
  auto [e, added] = boost::add_edge(a, b, EdgeProps{links_.size()}, graph_);
  if (!added) throw Error(fmt::format("topology: duplicate link between {} and {}", graph_[a].name, graph_[b].name));
  links_.push_back(Link{std::move(name), a, b, bandwidth_Bps, latency_s});
}

TopologyGraph TopologyGraph::build(const config::PlatformSpec& platform) {
  TopologyGraph t;
  const int n = platform.node.devices;
  for (int d = 0; d < n; ++d) t.add_vertex(VertexKind::Device, fmt::format("dev{}", d), d);
  switch (platform.node.topology) {
    case config::NodeTopology::Switch: {
      // A non-blocking crossbar: one port per device, so the switch itself needs no capacity.
      Vertex sw = t.add_vertex(VertexKind::Switch, "switch0", -1);
      for (int d = 0; d < n; ++d)
        t.add_link(t.devices_[d], sw, fmt::format("dev{}-switch0", d), platform.node.link.bandwidth_Bps,
                   platform.node.link.latency_s);
      break;
    }
    default:
      throw Error(fmt::format("topology: node topology {} is not built yet",
                              config::node_topology_name(platform.node.topology)));
  }
  return t;
}

std::vector<Hop> TopologyGraph::route(int from, int to) const {
  const Vertex src = device_vertex(from);
  const Vertex dst = device_vertex(to);
  const auto nv = boost::num_vertices(graph_);
  std::vector<Edge> pred_edge(nv);
  std::vector<bool> reached(nv, false);
  reached[src] = true;
  // BFS over vertices in index order: the first path found is the deterministic fewest-hop one.
  std::vector<Vertex> frontier{src};
  while (!frontier.empty() && !reached[dst]) {
    std::vector<Vertex> next;
    for (Vertex u : frontier) {
      for (auto [it, end] = boost::out_edges(u, graph_); it != end; ++it) {
        Vertex v = boost::target(*it, graph_);
        if (reached[v]) continue;
        // Only switches forward traffic: a device is an endpoint, never a hop.
        reached[v] = true;
        pred_edge[v] = *it;
        if (graph_[v].kind == VertexKind::Switch) next.push_back(v);
      }
    }
    frontier = std::move(next);
  }
  if (!reached[dst])
    throw Error(fmt::format("topology: no route from {} to {}", graph_[src].name, graph_[dst].name));

  std::vector<Hop> hops;
  for (Vertex v = dst; v != src;) {
    const Edge e = pred_edge[v];
    const Vertex u = boost::source(e, graph_) == v ? boost::target(e, graph_) : boost::source(e, graph_);
    // Stored edges keep the orientation they were added with; compare against that.
    const std::size_t index = graph_[e].index;
    hops.push_back(Hop{index, links_[index].from == u});
    v = u;
  }
  std::reverse(hops.begin(), hops.end());
  return hops;
}

double TopologyGraph::route_latency_s(int from, int to) const {
  double total = 0;
  for (const Hop& h : route(from, to)) total += links_[h.edge_index].latency_s;
  return total;
}

double TopologyGraph::route_bandwidth_Bps(int from, int to) const {
  double narrowest = std::numeric_limits<double>::infinity();
  for (const Hop& h : route(from, to)) narrowest = std::min(narrowest, links_[h.edge_index].bandwidth_Bps);
  return narrowest;
}

}  // namespace clearfog::topology
