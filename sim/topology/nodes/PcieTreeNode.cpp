// pcie-tree: devices under PCIe switches under one root complex. Devices are spread over the
// switches in contiguous blocks (sizes differ by at most one), so neighbours by index share a
// switch; traffic between switches crosses the root complex over both uplinks.
#include <fmt/format.h>

#include "core/Errors.hpp"
#include "config/CheckSupport.hpp"
#include "config/KeyTableParts.hpp"
#include "topology/NodeSketch.hpp"
#include "topology/TopologyGraph.hpp"
#include "topology/nodes/PcieTreeNode.hpp"

namespace clearfog::topology::nodes {

namespace {

NodeLayout build_pcie_tree(const config::NodeSpec& node) {
  const int n = node.devices;
  const auto& pcie_params = node.params_as<PcieTreeParams>();
  const int switches = pcie_params.switches;
  if (switches < 1 || switches > n)
    throw Error(fmt::format("topology: pcie-tree: node.pcie.switches must be between 1 and node.devices ({}), got {}",
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
  for (std::size_t s : pcie) layout.add_link(s, root, pcie_params.uplink.bandwidth_Bps, pcie_params.uplink.latency_s);
  return layout;
}

class PcieTreeNode final : public NodeTopologyType {
public:
  std::string_view name() const override { return "pcie-tree"; }
  std::string_view summary() const override { return "devices under PCIe switches under one host bridge"; }
  std::vector<config::KeySpec> keys() const override {
    return {{.path = "node.pcie.switches",
             .type = config::KeyType::Integer,
             .constraint = config::Constraint::AtLeastOne,
             .counts = "PCIe switches",
             .description = "PCIe switches under the host bridge; devices are spread evenly over them, so the "
                            "number must divide node.devices."},
            config::bandwidth_key("node.pcie.uplink.bandwidth",
                                  "Bandwidth per direction of a PCIe switch's link to the host bridge."),
            config::latency_key("node.pcie.uplink.latency", "Latency of a PCIe switch's link to the host bridge.")};
  }
  void check(const config::ConfigDocument& doc, std::int64_t devices, std::vector<Diagnostic>& out) const override {
    if (const config::ConfigValue* switches = config::used(doc, "node.pcie.switches");
        switches && devices % switches->as_integer())
      config::report_at(*switches,
                        fmt::format("{} devices cannot be spread evenly over {} PCIe switches; allowed: a divisor "
                                    "of {} ({})",
                                    devices, switches->as_integer(), devices, config::divisors_text(devices)),
                        out);
  }
  std::shared_ptr<const config::NodeParams> read(const config::ConfigDocument& doc) const override {
    auto p = std::make_shared<PcieTreeParams>();
    p->switches = doc.get_int("node.pcie.switches");
    p->uplink = {doc.at("node.pcie.uplink.bandwidth").as_number(), doc.at("node.pcie.uplink.latency").as_number()};
    return p;
  }
  bool nvlink_class() const override { return false; }
  NodeLayout build(const config::NodeSpec& node) const override { return build_pcie_tree(node); }
  std::optional<std::string> sketch(const TopologyGraph& t, const config::NodeSpec& node) const override {
    const Graph& g = t.graph();
    std::string text = "  [root]  host bridge\n";
    for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
      if (g[v].kind != VertexKind::Switch || g[v].name == "root") continue;
      text += fmt::format("    +-- [{}]  uplink {}\n", g[v].name,
                          sketch_bandwidth(node.params_as<PcieTreeParams>().uplink.bandwidth_Bps));
      for (const auto& [u, link] : sketch_neighbours(t, v))
        if (g[u].kind == VertexKind::Device)
          text += fmt::format("    |     +-- {:<6} {}\n", g[u].name, sketch_bandwidth(link->bandwidth_Bps));
    }
    return text;
  }
};

}  // namespace

const NodeTopologyType& pcie_tree_node() {
  static const PcieTreeNode kind;
  return kind;
}

}  // namespace clearfog::topology::nodes
