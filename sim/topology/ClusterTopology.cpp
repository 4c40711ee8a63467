#include "topology/ClusterTopology.hpp"

#include <fmt/format.h>

#include <numeric>

#include "core/Errors.hpp"

namespace clearfog::topology {

ClusterTopology ClusterTopology::build(const config::PlatformSpec& platform) {
  if (platform.fabric.nodes != 1)
    throw Error(fmt::format("topology: multi-node fabrics ({} nodes) are not built yet", platform.fabric.nodes));
  ClusterTopology c;
  c.platform_ = platform;
  c.node_ = TopologyGraph::build(platform);
  c.node_ring_.resize(platform.node.devices);
  std::iota(c.node_ring_.begin(), c.node_ring_.end(), 0);
  return c;
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
