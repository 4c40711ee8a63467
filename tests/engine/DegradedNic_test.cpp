// A degraded NIC (fabric.degraded_nics, docs/stragglers.md): it moves data at the NIC bandwidth /
// slowdown, so a transfer through it takes slowdown times as long, and a transfer through another
// NIC of the same machine keeps its time.
#include <catch2/catch.hpp>

#include "engine/ForkedRun.hpp"
#include "support/TopologyPlatforms.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;
using program::Transfer;

namespace {

constexpr double kNic_Bps = 10e9, kBytes = 1e9;

/// Two nodes of two devices, one NIC per device (rails), no latency; fabric links far faster.
config::PlatformSpec two_nodes(std::vector<config::NicSlowdown> degraded) {
  auto p = test::fat_tree_cluster(2, 2, config::LinkSpec{1000e9, 0}, 2, config::LinkSpec{kNic_Bps, 0},
                                  config::LinkSpec{1000e9, 0});
  p.fabric.degraded_nics = std::move(degraded);
  return p;
}

/// Device `from` (node 0) sends kBytes to device `from + 2` (node 1, same rail).
double transfer_s(const config::PlatformSpec& platform, int from) {
  program::Plan plan;
  plan.ranks.resize(4);
  plan.ranks[static_cast<std::size_t>(from)].add_exchange(Stream::Comm, Category::DataParallelComm, "send",
                                                          {Transfer{from + 2, kBytes, 1}}, {});
  plan.ranks[static_cast<std::size_t>(from + 2)].add_exchange(Stream::Comm, Category::DataParallelComm, "recv", {},
                                                              {Transfer{from, kBytes, 1}});
  return engine::simulate_forked(topology::ClusterTopology::build(platform), plan).makespan_s;
}

}  // namespace

TEST_CASE("topology: a degraded NIC moves data at its bandwidth / slowdown", "[engine][stragglers]") {
  const auto healthy = two_nodes({});
  const auto degraded = two_nodes({{0, 1, 4.0}});  // node 0, NIC 1: a quarter of the bandwidth
  CHECK(degraded.fabric.nic_bandwidth_Bps(0, 1) == kNic_Bps / 4);
  CHECK(degraded.fabric.nic_bandwidth_Bps(1, 1) == kNic_Bps);
  CHECK(transfer_s(healthy, 1) == Approx(kBytes / kNic_Bps).epsilon(1e-9));
  CHECK(transfer_s(degraded, 1) == Approx(4 * kBytes / kNic_Bps).epsilon(1e-9));  // through NIC 1
  CHECK(transfer_s(degraded, 0) == Approx(kBytes / kNic_Bps).epsilon(1e-9));      // NIC 0 is healthy
}
