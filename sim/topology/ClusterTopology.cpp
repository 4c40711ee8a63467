#include "config/NodeTopologySchema.hpp"
#include "topology/ClusterTopology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "core/Errors.hpp"
#include "topology/FabricShape.hpp"
#include "topology/RingOrder.hpp"

namespace clearfog::topology {

struct ClusterTopology::FamilyCache {
  std::mutex mutex;
  std::map<std::vector<int>, RingFamily> by_members;  // node-based: references stay valid
};

namespace {

void check_fabric(const config::PlatformSpec& platform) {
  const config::FabricSpec& fabric = platform.fabric;
  if (fabric.nodes < 1) throw Error(fmt::format("topology: fabric.nodes must be >= 1, got {}", fabric.nodes));
  if (fabric.nodes == 1) return;
  if (fabric.nic_count < 1 || fabric.nic_count > platform.node.devices)
    throw Error(fmt::format("topology: fabric.nic_count must be between 1 and node.devices ({}) when there are {} "
                            "nodes, got {}",
                            platform.node.devices, fabric.nodes, fabric.nic_count));
  if (!(fabric.nic.bandwidth_Bps > 0))
    throw Error(fmt::format("topology: fabric.nic.bandwidth must be > 0, got {} B/s", fabric.nic.bandwidth_Bps));
  if (!(fabric.link.bandwidth_Bps > 0))
    throw Error(fmt::format("topology: fabric.link.bandwidth must be > 0, got {} B/s", fabric.link.bandwidth_Bps));
  const int leaves = fabric_leaf_count(fabric);
  if (leaves != fabric.nodes)
    throw Error(fmt::format("topology: the {} parameters describe {} nodes but fabric.nodes is {}",
                            config::fabric_topology_name(fabric.topology), leaves, fabric.nodes));
}

}  // namespace

ClusterTopology ClusterTopology::build(const config::PlatformSpec& platform) {
  check_fabric(platform);
  if (platform.node.in_switch_reduction && !platform.node.topology.schema().has_switch())
    throw Error(fmt::format("topology: node.in_switch_reduction needs a node with a switch, got {}",
                            config::node_topology_name(platform.node.topology)));
  ClusterTopology c;
  c.platform_ = platform;
  c.node_ = TopologyGraph::build(platform);
  c.node_ring_ = topology::ring_order(c.node_, platform.node);
  c.node_ring_position_.assign(c.node_ring_.size(), 0);
  for (std::size_t i = 0; i < c.node_ring_.size(); ++i)
    c.node_ring_position_[static_cast<std::size_t>(c.node_ring_[i])] = static_cast<int>(i);
  return c;
}

int ClusterTopology::nic_of(int device) const {
  const int nics = std::max(platform_.fabric.nic_count, 1);
  return local_index(device) * nics / devices_per_node();
}

int ClusterTopology::endpoint_count() const {
  return device_count() + (platform_.node.in_switch_reduction ? node_count() : 0);
}

std::optional<int> ClusterTopology::reduction_switch(int node) const {
  if (!platform_.node.in_switch_reduction) return std::nullopt;
  return device_count() + node;
}

std::vector<int> ClusterTopology::ring_order() const {
  std::vector<int> order;
  order.reserve(device_count());
  for (int n = 0; n < node_count(); ++n)
    for (int local : node_ring_) order.push_back(n * devices_per_node() + local);
  return order;
}

}  // namespace clearfog::topology

namespace clearfog::topology {

std::shared_ptr<ClusterTopology::FamilyCache> ClusterTopology::new_family_cache() {
  return std::make_shared<FamilyCache>();
}

const RingFamily& ClusterTopology::ring_family(const std::vector<int>& locals) const {
  std::lock_guard lock(families_->mutex);
  auto it = families_->by_members.find(locals);
  if (it == families_->by_members.end()) {
    std::vector<std::vector<double>> width(locals.size(), std::vector<double>(locals.size(), 0.0));
    for (std::size_t a = 0; a < locals.size(); ++a)
      for (std::size_t b = 0; b < locals.size(); ++b)
        if (a != b) width[a][b] = node_.direct_bandwidth_Bps(locals[a], locals[b]);
    it = families_->by_members.emplace(locals, topology::ring_family(width)).first;
  }
  return it->second;
}

}  // namespace clearfog::topology
