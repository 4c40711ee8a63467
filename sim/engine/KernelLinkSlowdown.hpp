#pragma once
// Interference::collective (docs/frameworks.md, "Compute-communication interference"): while a
// kernel runs on a device, every link that touches the device carries its transfers `factor` times
// slower, because they read or write the memory the kernel streams from. A link's bandwidth is
// divided by the factor while a kernel runs on any device it touches, and given back when the
// last ends; SimGrid re-shares the bandwidth of the comms in flight on it at that instant.
//
// SimGrid's CM02 also caps a comm, for its whole life, at the narrowest bandwidth of its route
// when it starts. A comm must start with its route at nominal bandwidth, or it would stay slow
// after the kernel ends: start() lifts the slowdown of its route's links for that instant.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace simgrid::s4u {
class Host;
class Link;
}  // namespace simgrid::s4u

namespace clearfog::engine {

class KernelLinkSlowdown {
public:
  /// `device_links[slot]`: the links that touch the slot's device. Factor 1: does nothing.
  KernelLinkSlowdown(double factor, const std::vector<std::vector<simgrid::s4u::Link*>>& device_links);

  void kernel_started(std::uint32_t slot);
  void kernel_ended(std::uint32_t slot);

  /// Runs `start_comm` (which starts a comm from `src` to `dst`) with the route's links at their
  /// nominal bandwidth, and slows them again after.
  template <typename F>
  void start(simgrid::s4u::Host* src, simgrid::s4u::Host* dst, F&& start_comm) {
    if (slowed_ == 0) {
      start_comm();
      return;
    }
    lift(src, dst);
    start_comm();
    restore_lifted();
  }

private:
  struct Entry {
    simgrid::s4u::Link* link;
    double nominal_Bps;
    std::uint32_t busy_devices = 0;  // devices it touches that run a kernel now (one kernel per device at a time)
  };
  void lift(simgrid::s4u::Host* src, simgrid::s4u::Host* dst);
  void restore_lifted();
  /// The entries on the route from `src` to `dst`, looked up in SimGrid once per pair.
  const std::vector<std::uint32_t>& route_entries(simgrid::s4u::Host* src, simgrid::s4u::Host* dst);
  using HostPair = std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>;
  struct HostPairHash {
    std::size_t operator()(const HostPair& p) const {
      return std::hash<const simgrid::s4u::Host*>()(p.first) * 31 + std::hash<const simgrid::s4u::Host*>()(p.second);
    }
  };

  double factor_ = 1;
  std::vector<Entry> links_;
  std::vector<std::vector<std::uint32_t>> of_slot_;  // [slot] indices into links_
  /// A link, or one direction of a split-duplex one (what a route holds), to its entry.
  std::unordered_map<const simgrid::s4u::Link*, std::uint32_t> entry_of_;
  std::uint32_t slowed_ = 0;  // links slowed now
  std::unordered_map<HostPair, std::vector<std::uint32_t>, HostPairHash> routes_;
  std::vector<std::uint32_t> lifted_;
};

}  // namespace clearfog::engine
