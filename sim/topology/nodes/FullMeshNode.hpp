#pragma once
#include "topology/NodeTopologyType.hpp"

namespace clearfog::topology::nodes {

/// full-mesh: a direct link between every pair of devices, n(n-1)/2 links.
const NodeTopologyType& full_mesh_node();

}  // namespace clearfog::topology::nodes
