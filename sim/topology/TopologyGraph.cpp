#include "topology/TopologyGraph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <mutex>

#include "core/Errors.hpp"
#include "topology/WidestShortestRoutes.hpp"
#include "topology/NodeTopologyType.hpp"

namespace clearfog::topology {

/// Routes per source, filled on first use under the mutex. An entry, once filled, is never replaced
/// (and the vector never grows), so references handed out stay valid for the graph's lifetime.
struct TopologyGraph::RouteCache {
  std::mutex mutex;
  std::vector<std::unique_ptr<const RoutesFrom>> from;
};

TopologyGraph::TopologyGraph(NodeLayout layout) : routes_(std::make_shared<RouteCache>()) {
  for (VertexProps& v : layout.vertices) {
    const bool device = v.kind == VertexKind::Device;
    if (device && v.device != static_cast<int>(devices_.size()))
      throw Error(fmt::format("topology: device vertex {} is out of order", v.name));
    const Vertex added = boost::add_vertex(std::move(v), graph_);
    if (device) devices_.push_back(added);
  }
  for (std::size_t i = 0; i < layout.links.size(); ++i) {
    const Link& l = layout.links[i];
    if (l.from == l.to) throw Error(fmt::format("topology: link {} joins a vertex to itself", l.name));
    if (link_between(l.from, l.to))
      throw Error(fmt::format("topology: duplicate link between {} and {}", graph_[l.from].name, graph_[l.to].name));
    if (!(l.bandwidth_Bps > 0))
      throw Error(fmt::format("topology: link {}: bandwidth must be > 0, got {} B/s", l.name, l.bandwidth_Bps));
    if (l.latency_s < 0)
      throw Error(fmt::format("topology: link {}: latency must be >= 0, got {} s", l.name, l.latency_s));
    boost::add_edge(l.from, l.to, EdgeProps{i}, graph_);
  }
  links_ = std::move(layout.links);
  routes_->from.resize(devices_.size());
}

TopologyGraph TopologyGraph::build(const config::PlatformSpec& platform) {
  const auto& node = platform.node;
  if (node.devices < 1) throw Error(fmt::format("topology: node.devices must be >= 1, got {}", node.devices));
  const NodeTopologyType& kind = node_topology_type(node.topology);
  TopologyGraph t(kind.build(node));
  kind.check_built(t);
  return t;
}

std::optional<std::size_t> TopologyGraph::link_between(Vertex a, Vertex b) const {
  auto [e, exists] = boost::edge(a, b, graph_);
  if (!exists) return std::nullopt;
  return graph_[e].index;
}

double TopologyGraph::direct_bandwidth_Bps(int a, int b) const {
  const auto link = link_between(device_vertex(a), device_vertex(b));
  return link ? links_[*link].bandwidth_Bps : 0.0;
}

const RoutesFrom& TopologyGraph::routes_from(int from) const {
  if (from < 0 || from >= device_count())
    throw Error(fmt::format("topology: device {} out of range (node has {})", from, device_count()));
  std::lock_guard lock(routes_->mutex);
  auto& slot = routes_->from[static_cast<std::size_t>(from)];
  if (!slot)
    slot = std::make_unique<const RoutesFrom>(widest_shortest_routes(graph_, links_, devices_, device_vertex(from)));
  return *slot;
}

const std::vector<Hop>& TopologyGraph::route(int from, int to) const {
  const RoutesFrom& r = routes_from(from);
  if (to < 0 || to >= device_count())
    throw Error(fmt::format("topology: device {} out of range (node has {})", to, device_count()));
  if (!r.reachable[to])
    throw Error(fmt::format("topology: no route from {} to {}", graph_[device_vertex(from)].name,
                            graph_[device_vertex(to)].name));
  return r.to[to];
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
