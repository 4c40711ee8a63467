#pragma once
// Closed-form figures of the inter-node fabric, from the same parameters SimGrid's cluster zones
// are built with (FatTreeParams, torus dimensions, DragonflyParams). Pure: used to check a
// platform before building it and by the platform analysis.
#include "config/PlatformSpec.hpp"

namespace clearfog::topology {

/// Number of leaves (nodes) the fabric parameters describe. Throws clearfog::Error naming the
/// parameter when they are malformed (empty, zero, or fat-tree vectors of different lengths).
int fabric_leaf_count(const config::FabricSpec& fabric);

/// Bandwidth across the fabric between two halves of the nodes, one direction, in B/s, counting
/// only fabric links (the NICs are the caller's business). Fat tree: the narrowest level,
/// min_i(nodes at level i × up_i × parallel_i) / 2 links (SimGrid counts nodes at level i+1 as
/// prod_{j<=i} up_j × prod_{j>i} down_j). Torus: the cut across the longest dimension d_max,
/// 2·N/d_max links (SimGrid's torus gives each node one link per dimension, so even an extent of
/// 2 has two). Dragonfly: the cut between halves of the groups, ⌊g/2⌋·⌈g/2⌉·(links per group pair)
/// (assumes every pair of groups is joined by that many links); within one group, the same between
/// halves of the chassis or routers. An approximation where halves cannot be balanced.
double fabric_bisection_Bps(const config::FabricSpec& fabric);

/// Links crossed between the two farthest nodes (node uplinks included): fat tree 2·levels, torus
/// Σ⌊d_i/2⌋, dragonfly up to 7 (node-router, green, black, blue, black, green, router-node).
int fabric_diameter_links(const config::FabricSpec& fabric);

}  // namespace clearfog::topology
