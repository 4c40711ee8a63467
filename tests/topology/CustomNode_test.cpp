// A node given as an explicit edge list.
#include <catch2/catch.hpp>

#include "core/Errors.hpp"
#include "support/TopologyPlatforms.hpp"
#include "topology/GraphChecks.hpp"

using namespace clearfog;

namespace {
constexpr config::LinkSpec kLink{10e9, 1e-6};
}

TEST_CASE("topology::CustomNode: a switchless chain forwards through devices", "[topology]") {
  const auto t = topology::TopologyGraph::build(
      test::custom_platform(3, {}, {{"dev0", "dev1", kLink}, {"dev1", "dev2", kLink}}));
  CHECK(t.links().size() == 2);
  CHECK(test::route_vertices(t, 0, 2) == std::vector<topology::Vertex>{0, 1, 2});
}

TEST_CASE("topology::CustomNode: rejects bad edge lists, naming the culprit", "[topology]") {
  SECTION("unknown endpoint") {
    const auto p = test::custom_platform(2, {"sw"}, {{"dev0", "sw", kLink}, {"dev9", "sw", kLink}});
    REQUIRE_THROWS_AS(topology::TopologyGraph::build(p), Error);
    REQUIRE_THROWS_WITH(topology::TopologyGraph::build(p), Catch::Contains("\"dev9\""));
  }
  SECTION("unreachable device") {
    const auto p = test::custom_platform(3, {"sw"}, {{"dev0", "sw", kLink}, {"dev1", "sw", kLink}});
    REQUIRE_THROWS_WITH(topology::TopologyGraph::build(p), Catch::Contains("dev2 cannot be reached"));
  }
  SECTION("duplicate link") {
    const auto p = test::custom_platform(2, {}, {{"dev0", "dev1", kLink}, {"dev1", "dev0", kLink}});
    REQUIRE_THROWS_WITH(topology::TopologyGraph::build(p), Catch::Contains("duplicate link between dev1 and dev0"));
  }
  SECTION("switch named like a device") {
    const auto p = test::custom_platform(2, {"dev1"}, {{"dev0", "dev1", kLink}});
    REQUIRE_THROWS_WITH(topology::TopologyGraph::build(p), Catch::Contains("\"dev1\""));
  }
  SECTION("self loop") {
    const auto p = test::custom_platform(2, {}, {{"dev0", "dev0", kLink}, {"dev0", "dev1", kLink}});
    REQUIRE_THROWS_WITH(topology::TopologyGraph::build(p), Catch::Contains("linked to itself"));
  }
}
