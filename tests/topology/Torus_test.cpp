// 2D and 3D tori with wrap-around links (TPU-like), dimension 0 varying fastest.
#include <catch2/catch.hpp>

#include <fmt/ranges.h>

#include <cstdlib>

#include "core/Errors.hpp"
#include "support/TopologyPlatforms.hpp"
#include "topology/ClusterTopology.hpp"
#include "topology/GraphChecks.hpp"
#include "topology/nodes/TorusNode.hpp"

using namespace clearfog;

namespace {
/// Links a torus has by definition: per dimension, one per device for extents > 2, one per pair
/// for extent 2, none for extent 1.
std::size_t expected_links(const std::vector<int>& dims) {
  int n = 1;
  for (int e : dims) n *= e;
  std::size_t links = 0;
  for (int e : dims) links += e > 2 ? n : (e == 2 ? n / 2 : 0);
  return links;
}

int torus_distance(const std::vector<int>& dims, int a, int b) {
  const auto ca = topology::nodes::torus_coordinates(dims, a);
  const auto cb = topology::nodes::torus_coordinates(dims, b);
  int hops = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const int d = std::abs(ca[i] - cb[i]);
    hops += std::min(d, dims[i] - d);
  }
  return hops;
}
}  // namespace

TEST_CASE("topology::Torus: links, degrees and route lengths follow the definition", "[topology]") {
  for (const std::vector<int>& dims : std::vector<std::vector<int>>{{4, 4, 4}, {4, 4}, {4, 2}, {3, 5}, {4, 1}}) {
    SECTION(fmt::format("{}", fmt::join(dims, "x"))) {
      const auto t = topology::TopologyGraph::build(test::torus_platform(dims, 100e9, 1e-6));
      CHECK(t.links().size() == expected_links(dims));
      int degree = 0;
      for (int e : dims) degree += e > 2 ? 2 : (e == 2 ? 1 : 0);
      for (int a = 0; a < t.device_count(); ++a) {
        CHECK(test::degree(t, a) == degree);
        for (int b = 0; b < t.device_count(); ++b)
          if (a != b) CHECK(t.route(a, b).size() == static_cast<std::size_t>(torus_distance(dims, a, b)));
      }
    }
  }
}

TEST_CASE("topology::Torus: a 4x4x4 torus has 3 links per device", "[topology]") {
  const auto t = topology::TopologyGraph::build(test::torus_platform({4, 4, 4}, 100e9, 1e-6));
  CHECK(t.links().size() == 3 * 64);
}

TEST_CASE("topology::Torus: the ring order is a ring of direct links", "[topology]") {
  // 4x4 is searched; 4x4x4 (64 devices) takes the snake order, which closes for even extents.
  for (const std::vector<int>& dims : std::vector<std::vector<int>>{{4, 4}, {2, 4}, {4, 4, 4}, {8, 8}}) {
    SECTION(fmt::format("{}", fmt::join(dims, "x"))) {
      const auto c = topology::ClusterTopology::build(test::torus_platform(dims, 100e9, 1e-6));
      CHECK(test::is_ring_of_direct_links(c.node(), c.node_ring_order()));
    }
  }
}

TEST_CASE("topology::Torus: rejects bad dimensions", "[topology]") {
  SECTION("one dimension") {
    auto p = test::torus_platform({8}, 100e9, 1e-6);
    REQUIRE_THROWS_WITH(topology::TopologyGraph::build(p), Catch::Contains("node.torus.dims"));
  }
  SECTION("product differs from devices") {
    auto p = test::torus_platform({4, 4}, 100e9, 1e-6);
    p.node.devices = 8;
    REQUIRE_THROWS_WITH(topology::TopologyGraph::build(p), Catch::Contains("product"));
  }
  SECTION("a zero extent") {
    auto p = test::torus_platform({4, 4}, 100e9, 1e-6);
    auto grid = std::make_shared<topology::nodes::GridParams>();
    grid->dims = {4, 0};
    p.node.params = grid;
    REQUIRE_THROWS_WITH(topology::TopologyGraph::build(p), Catch::Contains(">= 1"));
  }
}
