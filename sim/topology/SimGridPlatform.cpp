#include "topology/SimGridPlatform.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <optional>

#include "core/Errors.hpp"

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

namespace clearfog::topology {
namespace {

sg4::LinkInRoute in_route(sg4::Link* link, bool forward) {
  return {link, forward ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN};
}

/// Builds node zones; every node has the same graph, so its routes are looked up once.
///
/// Every link is created up front in the root zone, before any node zone exists: SimGrid checks a
/// new link's name by searching every zone of the platform, so links created zone by zone cost
/// O(links x zones) (13 s at 2,048 nodes) and links created first cost O(links log links). Hosts
/// likewise: SimGrid 3.32 checks a new host's name against every zone attached to the platform, so
/// every node zone is filled (hosts, routes) before any is attached, with the models a parent would
/// give it, and attached when the fabric asks for it (0.85 s of 1.7 s at 2,048 nodes).
class NodeZoneBuilder {
public:
  NodeZoneBuilder(const ClusterTopology& cluster, double host_speed, SimGridPlatform& platform)
      : cluster_(cluster), host_speed_(host_speed), platform_(platform) {
    // A reducing switch only exists on switch nodes, which have exactly one switch vertex.
    const Graph& g = cluster.node().graph();
    for (Vertex v = 0; v < boost::num_vertices(g); ++v)
      if (g[v].kind == VertexKind::Switch) {
        switch_vertex_ = v;
        break;
      }
    platform_.hosts.assign(static_cast<std::size_t>(cluster.endpoint_count()), nullptr);
    platform_.device_links.assign(platform_.hosts.size(), {});
    const TopologyGraph& topology = cluster.node();
    device_edges_.resize(static_cast<std::size_t>(cluster.devices_per_node()));
    for (std::size_t e = 0; e < topology.links().size(); ++e)
      for (int d = 0; d < cluster.devices_per_node(); ++d)
        if (topology.links()[e].from == topology.device_vertex(d) || topology.links()[e].to == topology.device_vertex(d))
          device_edges_[static_cast<std::size_t>(d)].push_back(e);
    const config::PlatformSpec& spec = cluster.platform();
    const bool fabric = cluster.node_count() > 1;
    if (fabric)
      for (int d = 0; d < cluster.devices_per_node(); ++d) {
        const auto nic = static_cast<std::size_t>(cluster.nic_of(d));
        if (nic >= nic_users_.size()) nic_users_.resize(nic + 1, 0);
        ++nic_users_[nic];
      }
    node_links_.resize(static_cast<std::size_t>(cluster.node_count()));
    node_nics_.resize(node_links_.size());
    for (int node = 0; node < cluster.node_count(); ++node) {
      for (const Link& l : cluster.node().links())
        node_links_[node].push_back(
            make_link(platform.root, fmt::format("node{}.{}", node, l.name), l.bandwidth_Bps, l.latency_s));
      if (fabric)
        for (int i = 0; i < spec.fabric.nic_count; ++i)
          node_nics_[node].push_back(make_link(platform.root, fmt::format("node{}.nic{}", node, i),
                                               spec.fabric.nic_bandwidth_Bps(node, i), spec.fabric.nic.latency_s));
    }
  }

  /// Node `node`'s zone under `parent` (null for a lone node); returns its netpoint and gateway
  /// (null without a fabric).
  std::pair<NetPoint*, NetPoint*> attach(int node, sg4::NetZone* parent) {
    if (node < 0 || node >= cluster_.node_count())
      throw Error(fmt::format("topology: the fabric zone asked for node {} of {}", node, cluster_.node_count()));
    const auto n = static_cast<std::size_t>(node);
    sg4::NetZone* zone = zones_[n];
    if (zone == nullptr) throw Error(fmt::format("topology: the fabric zone asked for node {} twice", node));
    zones_[n] = nullptr;
    zone->set_parent(parent);
    zone->seal();
    return {zone->get_netpoint(), gateways_[n]};
  }

  /// A node whose zone the fabric never attached, if any.
  [[nodiscard]] std::optional<int> unattached() const {
    for (std::size_t n = 0; n < zones_.size(); ++n)
      if (zones_[n] != nullptr) return static_cast<int>(n);
    return std::nullopt;
  }

  /// Every node's zone, filled and not yet attached to the platform.
  void prepare_all() {
    zones_.resize(static_cast<std::size_t>(cluster_.node_count()), nullptr);
    gateways_.resize(zones_.size(), nullptr);
    for (int node = 0; node < cluster_.node_count(); ++node) prepare(node);
  }

private:
  void prepare(int node) {
    const TopologyGraph& topology = cluster_.node();
    const bool fabric = cluster_.node_count() > 1;
    const int per_node = cluster_.devices_per_node();

    auto* zone = sg4::create_full_zone(fmt::format("node{}", node));
    // The models set_parent would copy, so that hosts can be made before the zone is attached.
    const auto* root = platform_.root->get_impl();
    auto* impl = zone->get_impl();
    impl->set_network_model(root->get_network_model());
    impl->set_cpu_pm_model(root->get_cpu_pm_model());
    impl->set_cpu_vm_model(root->get_cpu_vm_model());
    impl->set_disk_model(root->get_disk_model());
    impl->set_host_model(root->get_host_model());

    // Every netpoint first: a full zone sizes its route table on the first add_route().
    std::vector<sg4::Host*> devices;
    for (int d = 0; d < per_node; ++d) {
      auto* host = zone->create_host(fmt::format("node{}.dev{}", node, d), host_speed_);
      host->seal();
      devices.push_back(host);
      platform_.hosts[static_cast<std::size_t>(node * per_node + d)] = host;
    }
    for (int d = 0; d < per_node; ++d) {
      auto& touching = platform_.device_links[static_cast<std::size_t>(node * per_node + d)];
      for (const std::size_t e : device_edges_[static_cast<std::size_t>(d)]) touching.push_back(node_links_[node][e]);
      // A NIC shared by several devices carries the traffic of idle ones too: a kernel slows only
      // a NIC of its own.
      const auto nic = static_cast<std::size_t>(fabric ? cluster_.nic_of(d) : 0);
      if (fabric && nic_users_[nic] == 1) touching.push_back(node_nics_[node][nic]);
    }
    sg4::Host* reducer = nullptr;
    if (const auto endpoint = cluster_.reduction_switch(node)) {
      reducer = zone->create_host(fmt::format("node{}.switch", node), host_speed_);
      reducer->seal();
      platform_.hosts[static_cast<std::size_t>(*endpoint)] = reducer;
    }
    NetPoint* gateway = fabric ? zone->create_router(fmt::format("node{}.gateway", node)) : nullptr;

    const std::vector<sg4::Link*>& links = node_links_[node];
    const std::vector<sg4::Link*>& nics = node_nics_[node];

    for (int a = 0; a < per_node; ++a) {
      for (int b = 0; b < per_node; ++b) {
        if (a == b) continue;
        std::vector<sg4::LinkInRoute> route;
        for (const Hop& hop : topology.route(a, b)) route.push_back(in_route(links[hop.edge_index], hop.forward));
        zone->add_route(devices[a]->get_netpoint(), devices[b]->get_netpoint(), nullptr, nullptr, route,
                        /*symmetrical=*/false);
      }
      if (reducer) {
        const auto port = topology.link_between(topology.device_vertex(a), switch_vertex_);
        if (!port) throw Error(fmt::format("topology: dev{} has no port on the reducing switch", a));
        const bool device_is_from = topology.links()[*port].from == topology.device_vertex(a);
        zone->add_route(devices[a]->get_netpoint(), reducer->get_netpoint(), nullptr, nullptr,
                        {in_route(links[*port], device_is_from)}, false);
        zone->add_route(reducer->get_netpoint(), devices[a]->get_netpoint(), nullptr, nullptr,
                        {in_route(links[*port], !device_is_from)}, false);
      }
      if (gateway) {
        sg4::Link* nic = nics[static_cast<std::size_t>(cluster_.nic_of(a))];
        zone->add_route(devices[a]->get_netpoint(), gateway, nullptr, nullptr, {in_route(nic, true)}, false);
        zone->add_route(gateway, devices[a]->get_netpoint(), nullptr, nullptr, {in_route(nic, false)}, false);
      }
    }
    zones_[static_cast<std::size_t>(node)] = zone;
    gateways_[static_cast<std::size_t>(node)] = gateway;
  }

  static sg4::Link* make_link(sg4::NetZone* zone, const std::string& name, double bandwidth_Bps, double latency_s) {
    auto* link = zone->create_split_duplex_link(name, bandwidth_Bps);
    link->set_latency(latency_s);
    link->seal();
    return link;
  }

  const ClusterTopology& cluster_;
  double host_speed_;
  SimGridPlatform& platform_;
  std::size_t switch_vertex_ = 0;
  std::vector<std::vector<sg4::Link*>> node_links_;  // [node][edge of the node graph]
  std::vector<std::vector<sg4::Link*>> node_nics_;   // [node][NIC]
  std::vector<sg4::NetZone*> zones_;                 // [node]: filled, not yet attached
  std::vector<NetPoint*> gateways_;                  // [node]: its router to the fabric (null without one)
  std::vector<std::vector<std::size_t>> device_edges_;  // [device of a node]: node-graph edges touching it
  std::vector<int> nic_users_;                          // [NIC of a node]: devices it serves
};

template <typename To>
std::vector<To> converted(const std::vector<int>& values) {
  return std::vector<To>(values.begin(), values.end());
}

sg4::NetZone* build_fabric_zone(const config::FabricSpec& fabric, const sg4::NetZone* parent,
                                const sg4::ClusterCallbacks& callbacks) {
  const double bw = fabric.link.bandwidth_Bps;
  const double lat = fabric.link.latency_s;
  const auto policy = sg4::Link::SharingPolicy::SPLITDUPLEX;  // each direction has the full bandwidth
  switch (fabric.topology) {
    case config::FabricTopology::FatTree: {
      const sg4::FatTreeParams params(static_cast<unsigned>(fabric.fat_tree_down.size()),
                                      converted<unsigned>(fabric.fat_tree_down), converted<unsigned>(fabric.fat_tree_up),
                                      converted<unsigned>(fabric.fat_tree_parallel));
      return sg4::create_fatTree_zone("fabric", parent, params, callbacks, bw, lat, policy);
    }
    case config::FabricTopology::Torus:
      return sg4::create_torus_zone("fabric", parent, converted<unsigned long>(fabric.torus_dims), callbacks, bw, lat,
                                    policy);
    case config::FabricTopology::Dragonfly: {
      const auto& d = fabric.dragonfly;
      auto u = [](int v) { return static_cast<unsigned>(v); };
      const sg4::DragonflyParams params({u(d[0]), u(d[1])}, {u(d[2]), u(d[3])}, {u(d[4]), u(d[5])}, u(d[6]));
      return sg4::create_dragonfly_zone("fabric", parent, params, callbacks, bw, lat, policy);
    }
  }
  throw Error("topology: unknown fabric topology");
}

}  // namespace

SimGridPlatform build_simgrid_platform(const ClusterTopology& cluster, double host_speed) {
  SimGridPlatform platform;
  platform.root = sg4::create_full_zone("clearfog");
  NodeZoneBuilder nodes(cluster, host_speed, platform);
  nodes.prepare_all();
  if (cluster.node_count() == 1) {
    nodes.attach(0, platform.root);
    return platform;
  }
  // SimGrid calls back once per leaf with the leaf's id (0 … nodes-1); each leaf is a node zone
  // whose gateway router connects it to the fabric.
  const sg4::ClusterCallbacks callbacks(
      [&nodes](sg4::NetZone* fabric, const std::vector<unsigned long>& /*coord*/, unsigned long id) {
        return nodes.attach(static_cast<int>(id), fabric);
      });
  build_fabric_zone(cluster.platform().fabric, platform.root, callbacks)->seal();
  if (const auto node = nodes.unattached())
    throw Error(fmt::format("topology: the {} fabric left node {} out of the platform",
                            config::fabric_topology_name(cluster.platform().fabric.topology), *node));
  return platform;
}

}  // namespace clearfog::topology
