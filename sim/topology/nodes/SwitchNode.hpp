#pragma once
#include "topology/NodeTopologyType.hpp"

namespace clearfog::topology::nodes {

/// switch: one port per device to a non-blocking crossbar (NVSwitch); its switch may reduce.
const NodeTopologyType& switch_node();

}  // namespace clearfog::topology::nodes
