#pragma once
// The whole machine: one node's graph (devices and switches, TopologyGraph) repeated over the
// nodes of the fabric. Devices are numbered node-major: device = node * devices_per_node + local.
// This is what planners ask about placement and what the engine turns into SimGrid zones.
#include <memory>
#include <optional>
#include <vector>

#include "config/PlatformSpec.hpp"
#include "topology/RingFamily.hpp"
#include "topology/TopologyGraph.hpp"

namespace clearfog::topology {

class ClusterTopology {
public:
  /// Throws clearfog::Error if the platform cannot be built (the validator normally prevents it):
  /// bad node parameters (see TopologyGraph::build), a fabric whose parameters do not describe
  /// fabric.nodes leaves, a multi-node platform without NICs, or in-switch reduction on a node
  /// that has no switch.
  static ClusterTopology build(const config::PlatformSpec& platform);

  [[nodiscard]] const config::PlatformSpec& platform() const { return platform_; }
  [[nodiscard]] const TopologyGraph& node() const { return node_; }
  [[nodiscard]] int device_count() const { return platform_.device_count(); }
  [[nodiscard]] int devices_per_node() const { return platform_.node.devices; }
  [[nodiscard]] int node_count() const { return platform_.fabric.nodes; }
  [[nodiscard]] int node_of(int device) const { return device / devices_per_node(); }
  [[nodiscard]] int local_index(int device) const { return device % devices_per_node(); }
  /// The NIC (0 … fabric.nic_count-1) a device's traffic to other nodes leaves through: devices are
  /// spread over the NICs in contiguous blocks, local device d uses NIC d * nic_count / devices.
  [[nodiscard]] int nic_of(int device) const;

  /// The order in which a ring collective over all devices visits them: each node's ring order,
  /// node after node.
  [[nodiscard]] std::vector<int> ring_order() const;
  /// Where `device` stands in ring_order() (its inverse), without building the order: planners ask
  /// this once per member of every collective group.
  [[nodiscard]] int ring_position(int device) const {
    return node_of(device) * devices_per_node() + node_ring_position_[static_cast<std::size_t>(local_index(device))];
  }
  /// Endpoints a plan may address as ranks: the devices (0 … device_count()-1), then one endpoint
  /// per node whose switch can reduce (node.in_switch_reduction: NVLS-like), in node order. The
  /// SimGrid platform has one host per endpoint, so an in-switch collective is planned as messages
  /// to and from the switch's endpoint, which runs its own program.
  [[nodiscard]] int endpoint_count() const;
  /// The endpoint of node `node`'s reducing switch, if it has one.
  [[nodiscard]] std::optional<int> reduction_switch(int node) const;

  /// The ring order inside one node (local indices); see topology/RingOrder.hpp.
  [[nodiscard]] const std::vector<int>& node_ring_order() const { return node_ring_; }
  /// The rings NCCL's channels take through the devices `locals` of one node (local indices, in
  /// the group's ring order), over their direct links: topology/RingFamily.hpp. Searched once per
  /// list and remembered (safe from several threads; copies share what was found).
  [[nodiscard]] const RingFamily& ring_family(const std::vector<int>& locals) const;

private:
  struct FamilyCache;

  config::PlatformSpec platform_;
  TopologyGraph node_{NodeLayout{}};
  std::vector<int> node_ring_;
  std::vector<int> node_ring_position_;  // inverse of node_ring_
  static std::shared_ptr<FamilyCache> new_family_cache();
  std::shared_ptr<FamilyCache> families_ = new_family_cache();
};

}  // namespace clearfog::topology
