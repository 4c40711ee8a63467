// ring: device i is linked to device i+1 (and the last to the first). With two devices the ring
// is a single link, with one device there is none.
#include "topology/nodes/RingNode.hpp"

#include <fmt/format.h>

#include "topology/NodeSketch.hpp"
#include "topology/TopologyGraph.hpp"

namespace clearfog::topology::nodes {

namespace {

NodeLayout build_ring(const config::NodeSpec& node) {
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

class RingNode final : public NodeTopologyType {
public:
  std::string_view name() const override { return "ring"; }
  std::string_view summary() const override { return "a bidirectional ring (IPU-Links)"; }
  NodeLayout build(const config::NodeSpec& node) const override { return build_ring(node); }
  std::optional<Bisection> bisection(const config::NodeSpec& node) const override {
    return Bisection{2 * node.link.bandwidth_Bps, "closed form: a ring is cut twice"};
  }
  std::optional<std::string> sketch(const TopologyGraph& t, const config::NodeSpec& node) const override {
    constexpr int kPerLine = 8;
    std::string text = fmt::format("  every link {}\n  ", sketch_bandwidth(node.link.bandwidth_Bps));
    for (int d = 0; d < t.device_count(); ++d) {
      text += fmt::format("dev{}", d);
      if (d + 1 < t.device_count()) text += (d + 1) % kPerLine == 0 ? " --\n  -- " : " -- ";
    }
    return text + (t.device_count() > 2 ? " -- (back to dev0)\n" : "\n");
  }
};

}  // namespace

const NodeTopologyType& ring_node() {
  static const RingNode kind;
  return kind;
}

}  // namespace clearfog::topology::nodes
