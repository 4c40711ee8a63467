#include "topology/nodes/NodeBuilders.hpp"

#include <fmt/format.h>

#include "core/Errors.hpp"

namespace clearfog::topology::nodes {

NodeLayout build_node_layout(const config::NodeSpec& node) {
  if (node.devices < 1) throw Error(fmt::format("topology: node.devices must be >= 1, got {}", node.devices));
  switch (node.topology) {
    case config::NodeTopology::Switch: return build_switch_node(node);
    case config::NodeTopology::HybridCubeMesh: return build_hybrid_cube_mesh_node(node);
    case config::NodeTopology::PcieTree: return build_pcie_tree_node(node);
    case config::NodeTopology::Ring: return build_ring_node(node);
    case config::NodeTopology::FullMesh: return build_full_mesh_node(node);
    case config::NodeTopology::Torus: return build_torus_node(node);
    case config::NodeTopology::Custom: return build_custom_node(node);
  }
  throw Error("topology: unknown node topology");
}

}  // namespace clearfog::topology::nodes
