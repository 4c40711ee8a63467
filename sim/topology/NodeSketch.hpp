#pragma once
// A text drawing of one node for `clearfog platform info`: the kind's own (a tree for switch and
// pcie-tree nodes, a chain for rings, a grid for tori and meshes), else per vertex its neighbours
// and link bandwidths.
#include <string>
#include <utility>
#include <vector>

#include "config/PlatformSpec.hpp"
#include "topology/TopologyGraph.hpp"

namespace clearfog::topology {

/// Largest torus drawn plane by plane; bigger ones show their first plane only.
inline constexpr int kSketchMaxTorusDevices = 64;

std::string sketch_node(const TopologyGraph& graph, const config::NodeSpec& node);

/// A bandwidth as the sketches print it ("300 GB/s").
std::string sketch_bandwidth(double Bps);
/// Vertex `v`'s neighbours in vertex order, with the link joining them.
std::vector<std::pair<Vertex, const Link*>> sketch_neighbours(const TopologyGraph& t, Vertex v);

}  // namespace clearfog::topology
