// ring: device i is linked to device i+1 (and the last to the first). With two devices the ring
// is a single link, with one device there is none.
#include "topology/nodes/NodeBuilders.hpp"

namespace clearfog::topology::nodes {

NodeLayout build_ring_node(const config::NodeSpec& node) {
  const int n = node.devices;
  NodeLayout layout;
  for (int d = 0; d < n; ++d) layout.add_device(d);
  if (n == 2) layout.add_link(0, 1, node.link.bandwidth_Bps, node.link.latency_s);
  if (n > 2)
    for (int d = 0; d < n; ++d)
      layout.add_link(static_cast<std::size_t>(d), static_cast<std::size_t>((d + 1) % n), node.link.bandwidth_Bps,
                      node.link.latency_s);
  return layout;
}

}  // namespace clearfog::topology::nodes
