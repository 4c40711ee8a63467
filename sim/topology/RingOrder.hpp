#pragma once
// The order in which a ring collective visits the devices of one node.
#include <vector>

#include "config/PlatformSpec.hpp"
#include "topology/TopologyGraph.hpp"

namespace clearfog::topology {

/// Largest node for which ring_order() searches for the best cycle (backtracking).
inline constexpr int kRingSearchMaxDevices = 16;

/// A Hamiltonian cycle over the devices (local indices, starting at 0) whose consecutive devices
/// are directly linked, maximising the narrowest of those links. Exact by backtracking for
/// nodes of up to kRingSearchMaxDevices devices. For larger nodes, or when no cycle of direct links
/// exists (switch and pcie-tree nodes, where every ring goes through the switches anyway), it falls
/// back to a snake order for tori (a cycle of direct links when the outer extents are even) and to
/// index order otherwise (the natural ring of ring and full-mesh nodes).
std::vector<int> ring_order(const TopologyGraph& graph, const config::NodeSpec& node);

/// Boustrophedon order of a torus's devices (dimension 0 fastest, reversing direction on every
/// step of a slower dimension): consecutive devices are neighbours.
std::vector<int> torus_snake_order(const std::vector<int>& dims);

}  // namespace clearfog::topology
