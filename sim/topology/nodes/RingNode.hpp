#pragma once
#include "topology/NodeTopologyType.hpp"

namespace clearfog::topology::nodes {

/// ring: device i linked to device i+1 and the last to the first (IPU-Links).
const NodeTopologyType& ring_node();

}  // namespace clearfog::topology::nodes
