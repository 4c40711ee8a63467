// full-mesh: one direct link between every pair of devices, n(n-1)/2 links.
#include "topology/nodes/FullMeshNode.hpp"

namespace clearfog::topology::nodes {

namespace {

NodeLayout build_full_mesh(const config::NodeSpec& node) {
  NodeLayout layout;
  for (int d = 0; d < node.devices; ++d) layout.add_device(d);
  for (std::size_t a = 0; a < layout.vertices.size(); ++a)
    for (std::size_t b = a + 1; b < layout.vertices.size(); ++b)
      layout.add_link(a, b, node.link.bandwidth_Bps, node.link.latency_s);
  return layout;
}

class FullMeshNode final : public NodeTopologyType {
public:
  std::string_view name() const override { return "full-mesh"; }
  std::string_view summary() const override { return "a direct link between every pair"; }
  std::int64_t link_count(std::int64_t devices) const override { return devices * (devices - 1) / 2; }
  NodeLayout build(const config::NodeSpec& node) const override { return build_full_mesh(node); }
  std::optional<Bisection> bisection(const config::NodeSpec& node) const override {
    const int n = node.devices;
    return Bisection{static_cast<double>(n / 2) * static_cast<double>((n + 1) / 2) * node.link.bandwidth_Bps,
                     "closed form: (n/2)^2 links"};
  }
};

}  // namespace

const NodeTopologyType& full_mesh_node() {
  static const FullMeshNode kind;
  return kind;
}

}  // namespace clearfog::topology::nodes
