// switch: every device has one port to a non-blocking crossbar (NVSwitch-like). The switch itself
// needs no capacity: a crossbar is limited by its ports, which are the device links.
#include "topology/nodes/SwitchNode.hpp"

#include <fmt/format.h>

#include "topology/NodeSketch.hpp"
#include "topology/TopologyGraph.hpp"

namespace clearfog::topology::nodes {

namespace {

NodeLayout build_switch(const config::NodeSpec& node) {
  NodeLayout layout;
  for (int d = 0; d < node.devices; ++d) layout.add_device(d);
  const std::size_t sw = layout.add_switch("switch0");
  for (int d = 0; d < node.devices; ++d)
    layout.add_link(static_cast<std::size_t>(d), sw, node.link.bandwidth_Bps, node.link.latency_s);
  return layout;
}

class SwitchNode final : public NodeTopologyType {
public:
  std::string_view name() const override { return "switch"; }
  std::string_view summary() const override {
    return "every device has one full-bandwidth port to a non-blocking switch (NVSwitch)";
  }
  bool has_switch() const override { return true; }
  NodeLayout build(const config::NodeSpec& node) const override { return build_switch(node); }
  std::optional<Bisection> bisection(const config::NodeSpec& node) const override {
    return Bisection{(node.devices / 2) * node.link.bandwidth_Bps, "closed form: n/2 device ports"};
  }
  std::optional<std::string> sketch(const TopologyGraph& t, const config::NodeSpec& node) const override {
    const Graph& g = t.graph();
    std::string text = fmt::format("  [switch0]  non-blocking crossbar{}\n",
                                   node.in_switch_reduction ? ", reduces in the switch" : "");
    for (int d = 0; d < t.device_count(); ++d)
      text += fmt::format("    +-- {:<6} {}\n", g[t.device_vertex(d)].name, sketch_bandwidth(node.link.bandwidth_Bps));
    return text;
  }
};

}  // namespace

const NodeTopologyType& switch_node() {
  static const SwitchNode kind;
  return kind;
}

}  // namespace clearfog::topology::nodes
