#include <catch2/catch.hpp>

#include "support/TestPlatforms.hpp"
#include "topology/TopologyGraph.hpp"

using namespace clearfog;

TEST_CASE("topology::TopologyGraph: a switch node routes every pair through two links", "[topology]") {
  const double bw = 300e9;
  const double lat = 0.5e-6;
  const auto t = topology::TopologyGraph::build(test::switch_platform(8, bw, lat));
  REQUIRE(t.device_count() == 8);
  REQUIRE(t.links().size() == 8);
  for (int a = 0; a < 8; ++a) {
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
