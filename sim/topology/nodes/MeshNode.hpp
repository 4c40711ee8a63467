#pragma once
#include <vector>

#include "topology/NodeTopologyType.hpp"

namespace clearfog::topology::nodes {

/// mesh: a 2D/3D grid like a torus but without wrap-around links: a board or tile of chips joined
/// to their neighbours only (Tesla's Dojo training tile joins 5 x 5 D1 dies so, Hot Chips 33, 2021).
/// Its parameters are a GridParams (node.mesh.dims).
const NodeTopologyType& mesh_node();

/// A cycle through every device of a 2D mesh over links between neighbours, where one exists (an
/// extent is even and both are at least 2): down column 0's neighbours, then the other columns row
/// by row, snaking. Empty otherwise.
std::vector<int> mesh_cycle(const std::vector<int>& dims);

}  // namespace clearfog::topology::nodes
