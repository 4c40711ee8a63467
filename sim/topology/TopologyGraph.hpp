#pragma once
// The machine as a Boost.Graph graph: devices and switches as vertices, full-duplex links as
// edges carrying per-direction bandwidth and latency. Routes between devices are computed here
// (pure), then handed to the SimGrid builder.
#include <boost/graph/adjacency_list.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/PlatformSpec.hpp"
#include "topology/NodeLayout.hpp"

namespace clearfog::topology {

/// A graph edge only knows which link it is: the graph can then be copied freely (Boost edge
/// descriptors point into the graph's own storage and would dangle in a copy).
struct EdgeProps {
  std::size_t index = 0;  // position in TopologyGraph::links()
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, EdgeProps>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

/// One link of a route and the direction it is crossed in: `forward` when going from the link's
/// `from` vertex to its `to` vertex (SimGrid's UP half of a split-duplex link).
struct Hop {
  std::size_t edge_index;  // index into TopologyGraph::links()
  bool forward;
};

/// Every route from one source device: `to[d]` is the route to device d (empty for d = source).
struct RoutesFrom {
  std::vector<std::vector<Hop>> to;
  std::vector<char> reachable;
};

class TopologyGraph {
public:
  /// Builds the graph of one node of the platform with the builder of `node.topology`
  /// (sim/topology/nodes/). Throws clearfog::Error for impossible parameters, duplicate links, or a
  /// custom node in which some device cannot reach another (the message names it).
  static TopologyGraph build(const config::PlatformSpec& platform);
  /// A graph from vertices and links written by a builder (devices must be named in index order).
  explicit TopologyGraph(NodeLayout layout);

  [[nodiscard]] const Graph& graph() const { return graph_; }
  [[nodiscard]] int device_count() const { return static_cast<int>(devices_.size()); }
  [[nodiscard]] Vertex device_vertex(int device) const { return devices_.at(device); }
  [[nodiscard]] const std::vector<Link>& links() const { return links_; }
  /// True when the node has switch vertices (switch, pcie-tree, custom with switches).
  [[nodiscard]] bool has_switches() const { return boost::num_vertices(graph_) > devices_.size(); }
  /// The link joining two vertices directly, if there is one.
  [[nodiscard]] std::optional<std::size_t> link_between(Vertex a, Vertex b) const;
  /// Bandwidth of the direct link between two devices; 0 if they are not directly linked.
  [[nodiscard]] double direct_bandwidth_Bps(int a, int b) const;

  /// Widest-then-shortest route from one device to another: the path with the largest bottleneck
  /// bandwidth, among those the fewest hops, ties broken by the lowest vertex index. A path's
  /// intermediate vertices are either all switches or all devices: devices forward traffic only
  /// where no switch is involved (ring, torus, meshes, switchless custom nodes), so on a switch
  /// node a device is never a hop; and two devices joined by a link use it (peer-to-peer), not a
  /// wider path through other devices. Computed once per source on first use and cached (the cache is
  /// shared by copies and safe to fill from several threads). Throws Error if `to` is unreachable.
  [[nodiscard]] const std::vector<Hop>& route(int from, int to) const;
  /// Every route from one device (see route()).
  [[nodiscard]] const RoutesFrom& routes_from(int from) const;
  /// Sum of link latencies along route(from, to).
  [[nodiscard]] double route_latency_s(int from, int to) const;
  /// Narrowest link bandwidth along route(from, to).
  [[nodiscard]] double route_bandwidth_Bps(int from, int to) const;

private:
  struct RouteCache;

  Graph graph_;
  std::vector<Vertex> devices_;
  std::vector<Link> links_;
  std::shared_ptr<RouteCache> routes_;
};

}  // namespace clearfog::topology
