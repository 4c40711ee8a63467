// Devices in contiguous blocks under PCIe switches, switches under one root complex.
#include <catch2/catch.hpp>

#include <map>

#include "core/Errors.hpp"
#include "support/TopologyPlatforms.hpp"
#include "topology/GraphChecks.hpp"

using namespace clearfog;

namespace {
constexpr config::LinkSpec kDeviceLink{32e9, 1e-6};
constexpr config::LinkSpec kUplink{16e9, 2e-6};
}  // namespace

TEST_CASE("topology::PcieTree: same switch in two hops, across the root in four", "[topology]") {
  const auto t = topology::TopologyGraph::build(test::pcie_tree_platform(8, 2, kDeviceLink, kUplink));
  CHECK(t.links().size() == 8 + 2);
  for (int d = 0; d < 8; ++d) CHECK(test::degree(t, d) == 1);
  // Devices 0-3 under pcie0, 4-7 under pcie1.
  CHECK(t.route(0, 3).size() == 2);
  CHECK(t.route_bandwidth_Bps(0, 3) == kDeviceLink.bandwidth_Bps);
  CHECK(t.route(0, 4).size() == 4);
  CHECK(t.route_bandwidth_Bps(0, 4) == kUplink.bandwidth_Bps);
  CHECK(t.route_latency_s(0, 4) == Approx(2 * kDeviceLink.latency_s + 2 * kUplink.latency_s));
}

TEST_CASE("topology::PcieTree: devices are spread evenly in contiguous blocks", "[topology]") {
  const int devices = 6;
  const int switches = 4;
  const auto t = topology::TopologyGraph::build(test::pcie_tree_platform(devices, switches, kDeviceLink, kUplink));
  std::vector<int> switch_of(devices);
  for (int d = 0; d < devices; ++d) switch_of[d] = static_cast<int>(test::route_vertices(t, d, d == 0 ? 1 : 0)[1]);
  std::map<int, int> count;
  for (int d = 0; d < devices; ++d) {
    ++count[switch_of[d]];
    if (d > 0) CHECK(switch_of[d] >= switch_of[d - 1]);  // contiguous
  }
  CHECK(count.size() == static_cast<std::size_t>(switches));
  for (const auto& [sw, n] : count) {
    CHECK(n >= devices / switches);
    CHECK(n <= (devices + switches - 1) / switches);
  }
}

TEST_CASE("topology::PcieTree: rejects a switch count out of range", "[topology]") {
  for (int switches : {0, 9}) {
    SECTION(std::to_string(switches) + " switches") {
      REQUIRE_THROWS_WITH(topology::TopologyGraph::build(test::pcie_tree_platform(8, switches, kDeviceLink, kUplink)),
                          Catch::Contains("node.pcie.switches"));
    }
  }
}
