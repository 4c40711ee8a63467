// switch: every device has one port to a non-blocking crossbar (NVSwitch-like). The switch itself
// needs no capacity: a crossbar is limited by its ports, which are the device links.
#include "topology/nodes/NodeBuilders.hpp"

namespace clearfog::topology::nodes {

NodeLayout build_switch_node(const config::NodeSpec& node) {
  NodeLayout layout;
  for (int d = 0; d < node.devices; ++d) layout.add_device(d);
  const std::size_t sw = layout.add_switch("switch0");
  for (int d = 0; d < node.devices; ++d)
    layout.add_link(static_cast<std::size_t>(d), sw, node.link.bandwidth_Bps, node.link.latency_s);
  return layout;
}

}  // namespace clearfog::topology::nodes
