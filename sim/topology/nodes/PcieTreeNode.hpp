#pragma once
#include "config/PlatformSpec.hpp"
#include "topology/NodeTopologyType.hpp"

namespace clearfog::topology::nodes {

/// pcie-tree's parameters (node.pcie.*).
struct PcieTreeParams final : config::NodeParams {
  int switches = 0;            // devices are spread evenly over these
  config::LinkSpec uplink;     // a PCIe switch to the host bridge
};

/// pcie-tree: devices under PCIe switches under one host bridge.
const NodeTopologyType& pcie_tree_node();

}  // namespace clearfog::topology::nodes
