#pragma once
// Platforms of every node kind and a small fat-tree cluster, built in code with round figures so
// that tests can derive their expectations from the topology's definition.
#include <string>
#include <utility>
#include <vector>

#include "topology/NodeTopologyType.hpp"
#include "support/TestPlatforms.hpp"
#include "topology/nodes/CustomNode.hpp"
#include "topology/nodes/PcieTreeNode.hpp"
#include "topology/nodes/TorusNode.hpp"

namespace clearfog::test {

/// One node of `devices` devices of kind `kind`, every link `bandwidth_Bps` per direction and
/// `latency_s`. Kind-specific parameters are left for the caller.
inline config::PlatformSpec node_platform(config::NodeTopology kind, int devices, double bandwidth_Bps,
                                          double latency_s) {
  config::PlatformSpec p = switch_platform(devices, bandwidth_Bps, latency_s);
  p.name = std::string("test ") + std::string(config::node_topology_name(kind));
  p.node.topology = kind;
  return p;
}

/// DGX-1-like: 8 devices, one NVLink brick = `brick_Bps`.
inline config::PlatformSpec hybrid_cube_mesh_platform(double brick_Bps, double latency_s) {
  return node_platform(clearfog::topology::node_topology("hybrid-cube-mesh"), 8, brick_Bps, latency_s);
}

inline config::PlatformSpec torus_platform(std::vector<int> dims, double bandwidth_Bps, double latency_s) {
  int devices = 1;
  for (int e : dims) devices *= e;
  auto p = node_platform(clearfog::topology::node_topology("torus"), devices, bandwidth_Bps, latency_s);
  auto grid = std::make_shared<topology::nodes::GridParams>();
  grid->dims = std::move(dims);
  p.node.params = std::move(grid);
  return p;
}

inline config::PlatformSpec pcie_tree_platform(int devices, int switches, config::LinkSpec device_link,
                                               config::LinkSpec uplink) {
  auto p = node_platform(clearfog::topology::node_topology("pcie-tree"), devices, device_link.bandwidth_Bps, device_link.latency_s);
  auto pcie = std::make_shared<topology::nodes::PcieTreeParams>();
  pcie->switches = switches;
  pcie->uplink = uplink;
  p.node.params = std::move(pcie);
  return p;
}

inline config::PlatformSpec custom_platform(int devices, std::vector<std::string> switches,
                                            std::vector<topology::nodes::CustomEdge> edges) {
  auto p = node_platform(clearfog::topology::node_topology("custom"), devices, 0, 0);
  auto custom = std::make_shared<topology::nodes::CustomParams>();
  custom->switches = std::move(switches);
  custom->edges = std::move(edges);
  p.node.params = std::move(custom);
  return p;
}

/// `nodes` switch nodes of `devices` devices on a one-level fat tree (one switch, `nodes` leaves,
/// one link each): `nics` NICs per node, rail-optimized.
inline config::PlatformSpec fat_tree_cluster(int nodes, int devices, config::LinkSpec device_link, int nics,
                                             config::LinkSpec nic, config::LinkSpec fabric_link) {
  auto p = switch_platform(devices, device_link.bandwidth_Bps, device_link.latency_s);
  p.name = "test fat tree";
  p.fabric.nodes = nodes;
  p.fabric.topology = config::FabricTopology::FatTree;
  p.fabric.nic_count = nics;
  p.fabric.nic = nic;
  p.fabric.link = fabric_link;
  p.fabric.fat_tree_down = {nodes};
  p.fabric.fat_tree_up = {1};
  p.fabric.fat_tree_parallel = {1};
  return p;
}

}  // namespace clearfog::test
