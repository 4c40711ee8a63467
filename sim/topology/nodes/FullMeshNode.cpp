// full-mesh: one direct link between every pair of devices, n(n-1)/2 links.
#include "topology/nodes/NodeBuilders.hpp"

namespace clearfog::topology::nodes {

NodeLayout build_full_mesh_node(const config::NodeSpec& node) {
  NodeLayout layout;
  for (int d = 0; d < node.devices; ++d) layout.add_device(d);
  for (std::size_t a = 0; a < layout.vertices.size(); ++a)
    for (std::size_t b = a + 1; b < layout.vertices.size(); ++b)
      layout.add_link(a, b, node.link.bandwidth_Bps, node.link.latency_s);
  return layout;
}

}  // namespace clearfog::topology::nodes
