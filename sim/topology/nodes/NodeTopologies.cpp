// The registry of node topology kinds: one line per kind, in docs order (switch first: it is the
// default). Everything else — `node.topology`'s choices and reference, the kinds' keys and the
// conditions on them, `clearfog platform info`'s drawings — derives from this list.
#include <fmt/format.h>

#include "core/Errors.hpp"
#include "topology/NodeTopologyType.hpp"
#include "topology/nodes/CustomNode.hpp"
#include "topology/nodes/FullMeshNode.hpp"
#include "topology/nodes/HybridCubeMeshNode.hpp"
#include "topology/nodes/MeshNode.hpp"
#include "topology/nodes/PcieTreeNode.hpp"
#include "topology/nodes/RingNode.hpp"
#include "topology/nodes/SwitchNode.hpp"
#include "topology/nodes/TorusNode.hpp"

namespace clearfog::topology {

const std::vector<const NodeTopologyType*>& node_topology_types() {
  static const std::vector<const NodeTopologyType*> all = {
      &nodes::switch_node(),    &nodes::hybrid_cube_mesh_node(), &nodes::pcie_tree_node(), &nodes::ring_node(),
      &nodes::full_mesh_node(), &nodes::torus_node(),            &nodes::custom_node(),
      &nodes::mesh_node(),
  };
  return all;
}

const NodeTopologyType& node_topology_type(config::NodeTopology topology) {
  return *node_topology_types().at(static_cast<std::size_t>(topology.index()));
}

config::NodeTopology node_topology(std::string_view name) {
  if (const auto t = config::parse_node_topology(name)) return *t;
  std::vector<std::string_view> names;
  for (const auto* t : node_topology_types()) names.push_back(t->name());
  throw Error(fmt::format("unknown node topology '{}'; registered: {}", name, fmt::join(names, ", ")));
}

}  // namespace clearfog::topology

namespace clearfog::config {

const std::vector<const NodeTopologySchema*>& node_topology_schemas() {
  static const std::vector<const NodeTopologySchema*> all(topology::node_topology_types().begin(),
                                                          topology::node_topology_types().end());
  return all;
}

const NodeTopologySchema& NodeTopology::schema() const {
  return *node_topology_schemas().at(static_cast<std::size_t>(id_));
}

std::string_view NodeTopology::name() const { return schema().name(); }

std::optional<NodeTopology> parse_node_topology(std::string_view name) {
  const auto& all = node_topology_schemas();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i]->name() == name) return NodeTopology::registered(static_cast<int>(i));
  return std::nullopt;
}

std::vector<NodeTopology> node_topologies() {
  std::vector<NodeTopology> all;
  for (std::size_t i = 0; i < node_topology_schemas().size(); ++i) all.push_back(NodeTopology::registered(static_cast<int>(i)));
  return all;
}

void NodeSpec::throw_missing_params() const {
  throw Error(fmt::format("a {} node has no parameters of the kind asked for (a platform built in code without "
                          "its node.params?)",
                          topology.name()));
}

}  // namespace clearfog::config
