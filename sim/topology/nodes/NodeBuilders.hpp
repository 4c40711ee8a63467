#pragma once
// One builder per `node.topology` kind, each in its own file (SwitchNode.cpp, TorusNode.cpp, …).
// A builder checks the parameters its kind needs and throws clearfog::Error naming the parameter
// and the bad value; the config validator normally catches these first, the builders stay safe
// for platforms built in code. Devices are always vertices 0 … devices-1, named dev<i>.
#include "config/PlatformSpec.hpp"
#include "topology/NodeLayout.hpp"

namespace clearfog::topology::nodes {

NodeLayout build_switch_node(const config::NodeSpec& node);
NodeLayout build_hybrid_cube_mesh_node(const config::NodeSpec& node);
NodeLayout build_pcie_tree_node(const config::NodeSpec& node);
NodeLayout build_ring_node(const config::NodeSpec& node);
NodeLayout build_full_mesh_node(const config::NodeSpec& node);
NodeLayout build_torus_node(const config::NodeSpec& node);
NodeLayout build_custom_node(const config::NodeSpec& node);

/// The builder of `node.topology`.
NodeLayout build_node_layout(const config::NodeSpec& node);

/// Device index of torus coordinates, dimension 0 varying fastest (the numbering TorusNode uses).
int torus_device_index(const std::vector<int>& dims, const std::vector<int>& coord);
/// Coordinates of a torus device, the inverse of torus_device_index().
std::vector<int> torus_coordinates(const std::vector<int>& dims, int device);

}  // namespace clearfog::topology::nodes
