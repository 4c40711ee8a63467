#pragma once
// One node as lists of vertices and links, before it becomes a Boost graph: what each node-kind
// builder (sim/topology/nodes/) writes and TopologyGraph reads. Kept apart from the graph so that a
// builder only says what is connected to what, never how routes are found.
#include <cstddef>
#include <string>
#include <vector>

namespace clearfog::topology {

enum class VertexKind { Device, Switch };

struct VertexProps {
  VertexKind kind = VertexKind::Device;
  std::string name;
  int device = -1;  // device index for Device vertices
};

/// One full-duplex link; `from` -> `to` is its "forward" direction (SimGrid's UP half).
struct Link {
  std::string name;
  std::size_t from = 0;      // vertex
  std::size_t to = 0;        // vertex
  double bandwidth_Bps = 0;  // per direction
  double latency_s = 0;
};

struct NodeLayout {
  std::vector<VertexProps> vertices;
  std::vector<Link> links;

  /// Adds device `device` named "dev<device>"; returns its vertex.
  std::size_t add_device(int device);
  /// Adds a switch (or any non-device vertex: PCIe switch, root complex); returns its vertex.
  std::size_t add_switch(std::string name);
  /// Adds a link named "<a>-<b>" from vertex a (forward direction) to vertex b.
  void add_link(std::size_t a, std::size_t b, double bandwidth_Bps, double latency_s);
};

}  // namespace clearfog::topology
