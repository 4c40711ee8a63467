#pragma once
// A text drawing of one node for `clearfog platform info`: a tree for switch and pcie-tree nodes,
// a chain for rings, a grid for tori, and per vertex its neighbours and link bandwidths otherwise.
#include <string>

#include "config/PlatformSpec.hpp"
#include "topology/TopologyGraph.hpp"

namespace clearfog::topology {

/// Largest torus drawn plane by plane; bigger ones show their first plane only.
inline constexpr int kSketchMaxTorusDevices = 64;

std::string sketch_node(const TopologyGraph& graph, const config::NodeSpec& node);

}  // namespace clearfog::topology
