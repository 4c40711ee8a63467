// pcie-tree: devices under PCIe switches under one root complex. Devices are spread over the
// switches in contiguous blocks (sizes differ by at most one), so neighbours by index share a
// switch; traffic between switches crosses the root complex over both uplinks.
#include <fmt/format.h>

#include "core/Errors.hpp"
#include "topology/nodes/NodeBuilders.hpp"

namespace clearfog::topology::nodes {

NodeLayout build_pcie_tree_node(const config::NodeSpec& node) {
  const int n = node.devices;
  const int switches = node.pcie_switches;
  if (switches < 1 || switches > n)
    throw Error(fmt::format("topology: pcie-tree: node.pcie_switches must be between 1 and node.devices ({}), got {}",
                            n, switches));
  NodeLayout layout;
  for (int d = 0; d < n; ++d) layout.add_device(d);
  std::vector<std::size_t> pcie;
  for (int s = 0; s < switches; ++s) pcie.push_back(layout.add_switch(fmt::format("pcie{}", s)));
  const std::size_t root = layout.add_switch("root");
  for (int d = 0; d < n; ++d) {
    const int s = d * switches / n;  // contiguous blocks: devices [s*n/S, (s+1)*n/S) share switch s
    layout.add_link(static_cast<std::size_t>(d), pcie[s], node.link.bandwidth_Bps, node.link.latency_s);
  }
  for (std::size_t s : pcie) layout.add_link(s, root, node.pcie_uplink.bandwidth_Bps, node.pcie_uplink.latency_s);
  return layout;
}

}  // namespace clearfog::topology::nodes
