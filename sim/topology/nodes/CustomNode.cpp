// custom: devices dev0 … dev<n-1>, the named switches of node.custom_switches, and the edges of
// node.custom_edges, each with its own link. Whether every device can reach every other one is
// checked by TopologyGraph::build once routes exist.
#include <fmt/format.h>

#include <map>

#include "core/Errors.hpp"
#include "topology/nodes/NodeBuilders.hpp"

namespace clearfog::topology::nodes {

NodeLayout build_custom_node(const config::NodeSpec& node) {
  NodeLayout layout;
  std::map<std::string, std::size_t, std::less<>> vertex_of;
  for (int d = 0; d < node.devices; ++d) vertex_of[layout.vertices[layout.add_device(d)].name] = static_cast<std::size_t>(d);
  for (const std::string& name : node.custom_switches) {
    if (vertex_of.count(name) != 0)
      throw Error(fmt::format("topology: custom: node.custom_switches: \"{}\" is already a device or switch", name));
    vertex_of[name] = layout.add_switch(name);
  }
  auto endpoint = [&](std::size_t edge, const std::string& name) {
    auto it = vertex_of.find(name);
    if (it == vertex_of.end())
      throw Error(fmt::format("topology: custom: node.custom_edges[{}]: unknown endpoint \"{}\" (devices are dev0 … "
                              "dev{}; switches must be listed in node.custom_switches)",
                              edge, name, node.devices - 1));
    return it->second;
  };
  for (std::size_t e = 0; e < node.custom_edges.size(); ++e) {
    const config::CustomEdge& edge = node.custom_edges[e];
    const std::size_t a = endpoint(e, edge.from);
    const std::size_t b = endpoint(e, edge.to);
    if (a == b) throw Error(fmt::format("topology: custom: node.custom_edges[{}]: \"{}\" is linked to itself", e, edge.from));
    if (edge.link.bandwidth_Bps <= 0)
      throw Error(fmt::format("topology: custom: node.custom_edges[{}] ({} -- {}): bandwidth must be > 0, got {}", e,
                              edge.from, edge.to, edge.link.bandwidth_Bps));
    layout.add_link(a, b, edge.link.bandwidth_Bps, edge.link.latency_s);
  }
  return layout;
}

}  // namespace clearfog::topology::nodes
