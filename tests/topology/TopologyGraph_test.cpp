// Routes of node graphs: widest first, then fewest hops; devices forward only without switches.
#include <catch2/catch.hpp>

#include "core/Errors.hpp"
#include "support/TopologyPlatforms.hpp"
#include "topology/GraphChecks.hpp"
#include "topology/TopologyGraph.hpp"

using namespace clearfog;

TEST_CASE("topology::TopologyGraph: a switch node routes every pair through two links", "[topology]") {
  const double bw = 300e9;
  const double lat = 0.5e-6;
  const auto t = topology::TopologyGraph::build(test::switch_platform(8, bw, lat));
  REQUIRE(t.device_count() == 8);
  REQUIRE(t.links().size() == 8);
  for (int a = 0; a < 8; ++a) {
    CHECK(test::degree(t, a) == 1);
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      const auto route = t.route(a, b);
      REQUIRE(route.size() == 2);
      // Up the sender's link, down the receiver's: the two directions of different links.
      CHECK(route[0].edge_index == static_cast<std::size_t>(a));
      CHECK(route[0].forward);
      CHECK(route[1].edge_index == static_cast<std::size_t>(b));
      CHECK_FALSE(route[1].forward);
      CHECK(t.route_latency_s(a, b) == Approx(2 * lat));
      CHECK(t.route_bandwidth_Bps(a, b) == bw);
    }
  }
}

TEST_CASE("topology::TopologyGraph: a wider path wins over a shorter one", "[topology]") {
  // dev0 reaches dev3 through dev1 at 10 GB/s (two hops) or through dev2 and dev4 at 50 GB/s (three).
  const auto t = topology::TopologyGraph::build(test::custom_platform(
      5, {},
      {{"dev0", "dev1", {10e9, 1e-6}},
       {"dev1", "dev3", {10e9, 1e-6}},
       {"dev0", "dev2", {50e9, 1e-6}},
       {"dev2", "dev4", {50e9, 1e-6}},
       {"dev4", "dev3", {50e9, 1e-6}}}));
  CHECK(t.route_bandwidth_Bps(0, 3) == 50e9);
  CHECK(test::route_vertices(t, 0, 3) == std::vector<topology::Vertex>{0, 2, 4, 3});
}

TEST_CASE("topology::TopologyGraph: linked devices use their link, not a wider path through others", "[topology]") {
  // dev0 -- dev2 directly at 10 GB/s, or dev0 -- dev1 -- dev2 at 50 GB/s: peer-to-peer over NVLink
  // is not forwarded by a third GPU, so the direct link carries it.
  const auto t = topology::TopologyGraph::build(test::custom_platform(
      3, {}, {{"dev0", "dev2", {10e9, 1e-6}}, {"dev0", "dev1", {50e9, 1e-6}}, {"dev1", "dev2", {50e9, 1e-6}}}));
  CHECK(t.route(0, 2).size() == 1);
  CHECK(t.route_bandwidth_Bps(0, 2) == 10e9);
  CHECK(test::route_vertices(t, 0, 2) == std::vector<topology::Vertex>{0, 2});
}

TEST_CASE("topology::TopologyGraph: among equally wide paths the shortest wins, then the lowest index", "[topology]") {
  // dev0 reaches dev3 through dev1 or dev2 (two hops each) or along dev0-dev4-dev5-dev3 (three).
  const double b = 20e9;
  const auto t = topology::TopologyGraph::build(test::custom_platform(
      6, {},
      {{"dev0", "dev2", {b, 0}}, {"dev2", "dev3", {b, 0}}, {"dev0", "dev1", {b, 0}}, {"dev1", "dev3", {b, 0}},
       {"dev0", "dev4", {b, 0}}, {"dev4", "dev5", {b, 0}}, {"dev5", "dev3", {b, 0}}}));
  CHECK(test::route_vertices(t, 0, 3) == std::vector<topology::Vertex>{0, 1, 3});
  CHECK(test::route_vertices(t, 3, 0) == std::vector<topology::Vertex>{3, 1, 0});
}

TEST_CASE("topology::TopologyGraph: devices never forward next to a switch", "[topology]") {
  // dev0..dev2 on a switch, dev3 only behind dev2: reaching dev3 from dev0 would need dev2 to
  // forward switch traffic, so the custom node is rejected, naming the device.
  const config::LinkSpec l{10e9, 1e-6};
  const auto p = test::custom_platform(
      4, {"sw"}, {{"dev0", "sw", l}, {"dev1", "sw", l}, {"dev2", "sw", l}, {"dev2", "dev3", l}});
  REQUIRE_THROWS_AS(topology::TopologyGraph::build(p), Error);
  REQUIRE_THROWS_WITH(topology::TopologyGraph::build(p), Catch::Contains("dev3 cannot be reached"));
}

TEST_CASE("topology::TopologyGraph: a device link beside a switch is used directly", "[topology]") {
  // NVLink-bridged pairs on a PCIe switch: the bridge for the pair, the switch for the rest.
  const config::LinkSpec pcie{16e9, 1e-6};
  const config::LinkSpec bridge{100e9, 1e-6};
  const auto t = topology::TopologyGraph::build(test::custom_platform(
      4, {"pcie"},
      {{"dev0", "pcie", pcie}, {"dev1", "pcie", pcie}, {"dev2", "pcie", pcie}, {"dev3", "pcie", pcie},
       {"dev0", "dev1", bridge}, {"dev2", "dev3", bridge}}));
  CHECK(t.route(0, 1).size() == 1);
  CHECK(t.route_bandwidth_Bps(0, 1) == bridge.bandwidth_Bps);
  CHECK(t.route(0, 2).size() == 2);
  CHECK(t.route_bandwidth_Bps(0, 2) == pcie.bandwidth_Bps);
}

TEST_CASE("topology::TopologyGraph: routes are cached and shared by copies", "[topology]") {
  const auto t = topology::TopologyGraph::build(test::torus_platform({4, 4}, 10e9, 1e-6));
  const auto copy = t;
  CHECK(&t.route(0, 5) == &copy.route(0, 5));
}
