#include "topology/SimGridPlatform.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

namespace sg4 = simgrid::s4u;

namespace clearfog::topology {

SimGridPlatform build_simgrid_platform(const ClusterTopology& cluster, double host_speed) {
  const TopologyGraph& topology = cluster.node();
  const Graph& g = topology.graph();
  auto* zone = sg4::create_full_zone("node0");

  SimGridPlatform platform;
  for (int d = 0; d < topology.device_count(); ++d) {
    auto* host = zone->create_host(g[topology.device_vertex(d)].name, host_speed);
    host->seal();
    platform.hosts.push_back(host);
  }

  std::vector<sg4::SplitDuplexLink*> links;
  for (const Link& l : topology.links()) {
    auto* link = zone->create_split_duplex_link(l.name, l.bandwidth_Bps);
    link->set_latency(l.latency_s);
    link->seal();
    links.push_back(link);
  }

  for (int a = 0; a < topology.device_count(); ++a) {
    for (int b = 0; b < topology.device_count(); ++b) {
      if (a == b) continue;
      std::vector<sg4::LinkInRoute> route;
      for (const Hop& hop : topology.route(a, b))
        route.emplace_back(links[hop.edge_index],
                           hop.forward ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
      zone->add_route(platform.hosts[a]->get_netpoint(), platform.hosts[b]->get_netpoint(), nullptr, nullptr,
                      route, /*symmetrical=*/false);
    }
  }
  zone->seal();
  return platform;
}

}  // namespace clearfog::topology
