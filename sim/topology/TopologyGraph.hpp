#pragma once
// The machine as a Boost.Graph graph: devices and switches as vertices, full-duplex links as
// edges carrying per-direction bandwidth and latency. Routes between devices are computed here
// (pure), then handed to the SimGrid builder.
#include <boost/graph/adjacency_list.hpp>

#include <string>
#include <vector>

#include "config/PlatformSpec.hpp"

namespace clearfog::topology {

enum class VertexKind { Device, Switch };

struct VertexProps {
  VertexKind kind = VertexKind::Device;
  std::string name;
  int device = -1;  // device index for Device vertices
};

/// A graph edge only knows which link it is: the graph can then be copied freely (Boost edge
/// descriptors point into the graph's own storage and would dangle in a copy).
struct EdgeProps {
  std::size_t index = 0;  // position in TopologyGraph::links()
};

/// One full-duplex link; `from` -> `to` is its "forward" direction (SimGrid's UP half).
struct Link {
  std::string name;
  std::size_t from = 0;      // vertex
  std::size_t to = 0;        // vertex
  double bandwidth_Bps = 0;  // per direction
  double latency_s = 0;
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

class TopologyGraph {
public:
  /// Builds the graph of one node of the platform (the only scope until fabrics land).
  static TopologyGraph build(const config::PlatformSpec& platform);

  [[nodiscard]] const Graph& graph() const { return graph_; }
  [[nodiscard]] int device_count() const { return static_cast<int>(devices_.size()); }
  [[nodiscard]] Vertex device_vertex(int device) const { return devices_.at(device); }
  [[nodiscard]] const std::vector<Link>& links() const { return links_; }

  /// Fewest-hop route from one device to another (BFS; ties broken by vertex order, so
  /// routes are deterministic). Throws Error if `to` cannot be reached.
  [[nodiscard]] std::vector<Hop> route(int from, int to) const;
  /// Sum of link latencies along route(from, to).
  [[nodiscard]] double route_latency_s(int from, int to) const;
  /// Narrowest link bandwidth along route(from, to).
  [[nodiscard]] double route_bandwidth_Bps(int from, int to) const;

private:
  Vertex add_vertex(VertexKind kind, std::string name, int device);
  void add_link(Vertex a, Vertex b, std::string name, double bandwidth_Bps, double latency_s);

  Graph graph_;
  std::vector<Vertex> devices_;
  std::vector<Link> links_;
};

}  // namespace clearfog::topology
