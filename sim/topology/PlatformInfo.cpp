#include "topology/PlatformInfo.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "core/Units.hpp"
#include "topology/FabricShape.hpp"
#include "topology/NodeBisection.hpp"
#include "topology/NodeSketch.hpp"

namespace clearfog::topology {
namespace {

double least_injection_Bps(const TopologyGraph& t) {
  if (t.device_count() < 2) return 0;
  double least = std::numeric_limits<double>::infinity();
  for (int d = 0; d < t.device_count(); ++d) {
    double sum = 0;
    for (auto [it, end] = boost::out_edges(t.device_vertex(d), t.graph()); it != end; ++it)
      sum += t.links()[t.graph()[*it].index].bandwidth_Bps;
    least = std::min(least, sum);
  }
  return least;
}

int node_diameter_hops(const TopologyGraph& t) {
  std::size_t longest = 0;
  for (int a = 0; a < t.device_count(); ++a)
    for (int b = 0; b < t.device_count(); ++b) longest = std::max(longest, t.route(a, b).size());
  return static_cast<int>(longest);
}

}  // namespace

PlatformInfo analyse_platform(const ClusterTopology& cluster) {
  const config::PlatformSpec& spec = cluster.platform();
  const TopologyGraph& node = cluster.node();
  PlatformInfo info;
  info.devices = cluster.device_count();
  info.nodes = cluster.node_count();
  info.injection_bandwidth_Bps = least_injection_Bps(node);
  info.ring_order = cluster.node_ring_order();
  const RingFamily& family = cluster.ring_family(info.ring_order);
  for (const auto& ring : family.rings) {
    std::vector<int> locals;
    for (int position : ring) locals.push_back(info.ring_order[static_cast<std::size_t>(position)]);
    info.node_rings.push_back(std::move(locals));
  }
  info.node_ring_Bps = family.ring_Bps;
  info.sketch = sketch_node(node, spec.node);
  const int in_node_diameter = node_diameter_hops(node);
  const Bisection in_node = node_bisection(node, spec.node);
  if (cluster.node_count() == 1) {
    info.bisection_bandwidth_Bps = in_node.bandwidth_Bps;
    info.bisection_method = in_node.method;
    info.diameter_hops = in_node_diameter;
    return info;
  }
  const config::FabricSpec& fabric = spec.fabric;
  info.nic_bandwidth_per_device_Bps = fabric.nic_count * fabric.nic.bandwidth_Bps / cluster.devices_per_node();
  info.fabric_injection_per_device_Bps =
      std::min(info.nic_bandwidth_per_device_Bps, fabric.link.bandwidth_Bps / cluster.devices_per_node());
  const int half_nodes = cluster.node_count() / 2;
  const double nics = half_nodes * fabric.nic_count * fabric.nic.bandwidth_Bps;
  const double injection = static_cast<double>(info.devices / 2) * info.injection_bandwidth_Bps;
  const double fabric_cut = fabric_bisection_Bps(fabric);
  info.bisection_bandwidth_Bps = std::min({fabric_cut, nics, injection});
  info.bisection_method = fmt::format("closed form: least of the {} fabric cut, the NICs of half the nodes and the "
                                      "links of half the devices",
                                      config::fabric_topology_name(fabric.topology));
  info.diameter_hops = std::max(in_node_diameter, 2 + fabric_diameter_links(fabric));
  return info;
}

std::string render_platform_info(const PlatformInfo& info, const config::PlatformSpec& platform) {
  auto bw = [](double Bps) { return units::format(Bps, units::Dimension::Bandwidth); };
  std::string text = fmt::format("platform       {}\n", platform.name);
  text += fmt::format("devices        {} ({} node{} of {}, {})\n", info.devices, info.nodes, info.nodes == 1 ? "" : "s",
                      platform.node.devices, config::node_topology_name(platform.node.topology));
  if (info.nodes > 1)
    text += fmt::format("fabric         {}, {} NIC{} per node of {}, fabric links {}\n",
                        config::fabric_topology_name(platform.fabric.topology), platform.fabric.nic_count,
                        platform.fabric.nic_count == 1 ? "" : "s", bw(platform.fabric.nic.bandwidth_Bps),
                        bw(platform.fabric.link.bandwidth_Bps));
  text += fmt::format("injection      {} per device in the node (one direction)\n", bw(info.injection_bandwidth_Bps));
  if (info.nodes > 1)
    text += fmt::format("injection      {} per device into the fabric (NIC share {}; the node's fabric link {})\n",
                        bw(info.fabric_injection_per_device_Bps), bw(info.nic_bandwidth_per_device_Bps),
                        bw(platform.fabric.link.bandwidth_Bps));
  text += fmt::format("bisection      {} one direction ({})\n", bw(info.bisection_bandwidth_Bps), info.bisection_method);
  text += fmt::format("diameter       {} hop{}\n", info.diameter_hops, info.diameter_hops == 1 ? "" : "s");
  text += fmt::format("ring order     {} (inside a node)\n", fmt::join(info.ring_order, " "));
  if (!info.node_rings.empty()) {
    text += fmt::format("ring channels  {} ring{} of {} each over direct links (NCCL's search; reduce and gather "
                        "rings split their bytes over them)\n",
                        info.node_rings.size(), info.node_rings.size() == 1 ? "" : "s", bw(info.node_ring_Bps));
    for (const auto& ring : info.node_rings) text += fmt::format("               {}\n", fmt::join(ring, " "));
  }
  text += "node sketch\n" + info.sketch;
  return text;
}

}  // namespace clearfog::topology
