#pragma once
#include "topology/NodeTopologyType.hpp"

namespace clearfog::topology::nodes {

/// hybrid-cube-mesh: the NVLink2 wiring of a DGX-1 with 8 V100s.
const NodeTopologyType& hybrid_cube_mesh_node();

}  // namespace clearfog::topology::nodes
