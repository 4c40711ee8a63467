#pragma once
// Bisection bandwidth of one node: the least bandwidth, one direction, between two halves of its
// devices (sizes ⌊n/2⌋ and ⌈n/2⌉), switches free to sit on either side.
#include <string>

#include "config/PlatformSpec.hpp"
#include "topology/NodeTopologyType.hpp"
#include "topology/TopologyGraph.hpp"

namespace clearfog::topology {


/// Largest node for which node_bisection() enumerates every balanced split.
inline constexpr int kBisectionEnumerationMaxDevices = 16;

/// Exact for nodes of up to kBisectionEnumerationMaxDevices devices: every balanced split is
/// enumerated and its min cut found by max-flow (Boost push-relabel). Larger nodes use the closed
/// form of their kind (NodeTopologyType::bisection: switch ⌊n/2⌋·B, ring 2·B, full-mesh
/// ⌊n/2⌋·⌈n/2⌉·B, torus 2·n/d_max·B, n/2·B when d_max = 2, one link per pair); kinds without one
/// fall back to the max-flow of the split by index (first half against second half), an upper bound.
Bisection node_bisection(const TopologyGraph& graph, const config::NodeSpec& node);

/// Max-flow (= min cut) between two sets of devices, one direction, switches free. B/s.
double min_cut_Bps(const TopologyGraph& graph, const std::vector<int>& side_a, const std::vector<int>& side_b);

}  // namespace clearfog::topology
