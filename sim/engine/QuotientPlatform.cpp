#include "engine/QuotientPlatform.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

namespace sg4 = simgrid::s4u;

namespace clearfog::engine {

ReplayRanks build_quotient_platform(const program::Plan& plan, const SymmetryReduction& reduction,
                                    sg4::NetZone* root, double host_speed) {
  const int n = plan.rank_count();
  auto* zone = sg4::create_full_zone("quotient");
  zone->set_parent(root);

  ReplayRanks r;
  r.slot_of_rank.assign(static_cast<std::size_t>(n), -1);
  r.receiver_host.assign(static_cast<std::size_t>(n), nullptr);
  std::vector<int> slot_of_representative(static_cast<std::size_t>(n), -1);
  for (int x = 0; x < n; ++x) {
    if (reduction.representative[x] != x) continue;
    auto* host = zone->create_host(fmt::format("quotient.rank{}", x), host_speed);
    host->seal();
    slot_of_representative[x] = static_cast<int>(r.ranks.size());
    r.ranks.push_back(x);
    r.hosts.push_back(host);
    r.receiver_host[x] = host;
  }
  for (int x = 0; x < n; ++x)
    if (reduction.representative[x] >= 0) r.slot_of_rank[x] = slot_of_representative[reduction.representative[x]];
  // A rank outside the representatives that one of them sends to gets a host of its own, the far
  // end of the folded routes to it.
  for (const auto& route : reduction.routes) {
    if (r.receiver_host[route.receiver] != nullptr) continue;
    auto* host = zone->create_host(fmt::format("quotient.to{}", route.receiver), host_speed);
    host->seal();
    r.receiver_host[route.receiver] = host;
  }
  for (const auto& route : reduction.routes) {
    std::vector<sg4::LinkInRoute> links;
    for (sg4::Link* l : route.links) links.emplace_back(l);
    zone->add_route(r.receiver_host[route.sender]->get_netpoint(), r.receiver_host[route.receiver]->get_netpoint(),
                    nullptr, nullptr, links, /*symmetrical=*/false);
  }
  for (const auto& [link, sharers] : reduction.shared_links) link->set_bandwidth(link->get_bandwidth() / sharers);
  zone->seal();
  return r;
}

}  // namespace clearfog::engine
