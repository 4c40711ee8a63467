#include "engine/KernelLinkSlowdown.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

namespace clearfog::engine {

KernelLinkSlowdown::KernelLinkSlowdown(double factor,
                                       const std::vector<std::vector<simgrid::s4u::Link*>>& device_links)
    : factor_(factor) {
  if (factor == 1.0) return;
  of_slot_.resize(device_links.size());
  for (std::size_t s = 0; s < device_links.size(); ++s)
    for (simgrid::s4u::Link* link : device_links[s]) {
      const auto [it, added] = entry_of_.try_emplace(link, static_cast<std::uint32_t>(links_.size()));
      if (added) {
        links_.push_back(Entry{link, link->get_bandwidth()});
        // A route names the directions of a split-duplex link, not the link.
        for (const char* direction : {"_UP", "_DOWN"})
          if (const auto* half = simgrid::s4u::Link::by_name_or_null(link->get_name() + direction))
            entry_of_.try_emplace(half, it->second);
      }
      of_slot_[s].push_back(it->second);
    }
}

void KernelLinkSlowdown::kernel_started(std::uint32_t slot) {
  if (slot >= of_slot_.size()) return;
  for (const std::uint32_t i : of_slot_[slot]) {
    Entry& e = links_[i];
    if (e.busy_devices++ == 0) {
      e.link->set_bandwidth(e.nominal_Bps / factor_);
      ++slowed_;
    }
  }
}

void KernelLinkSlowdown::kernel_ended(std::uint32_t slot) {
  if (slot >= of_slot_.size()) return;
  for (const std::uint32_t i : of_slot_[slot]) {
    Entry& e = links_[i];
    if (--e.busy_devices == 0) {
      e.link->set_bandwidth(e.nominal_Bps);
      --slowed_;
    }
  }
}

const std::vector<std::uint32_t>& KernelLinkSlowdown::route_entries(simgrid::s4u::Host* src,
                                                                     simgrid::s4u::Host* dst) {
  const auto [it, added] = routes_.try_emplace({src, dst});
  if (added) {
    std::vector<simgrid::s4u::Link*> route;
    double latency_s = 0;
    src->route_to(dst, route, &latency_s);
    for (const simgrid::s4u::Link* link : route)
      if (const auto e = entry_of_.find(link); e != entry_of_.end()) it->second.push_back(e->second);
  }
  return it->second;
}

void KernelLinkSlowdown::lift(simgrid::s4u::Host* src, simgrid::s4u::Host* dst) {
  for (const std::uint32_t i : route_entries(src, dst)) {
    Entry& e = links_[i];
    if (e.busy_devices == 0) continue;
    e.link->set_bandwidth(e.nominal_Bps);
    lifted_.push_back(i);
  }
}

void KernelLinkSlowdown::restore_lifted() {
  // Only links still under a kernel (starting a comm ends none today; this keeps it so if it did).
  for (const std::uint32_t i : lifted_)
    if (links_[i].busy_devices > 0) links_[i].link->set_bandwidth(links_[i].nominal_Bps / factor_);
  lifted_.clear();
}

}  // namespace clearfog::engine
