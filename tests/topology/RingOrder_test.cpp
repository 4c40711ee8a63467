// The order in which ring collectives visit a node's devices.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <numeric>

#include "support/TopologyPlatforms.hpp"
#include "topology/ClusterTopology.hpp"
#include "topology/GraphChecks.hpp"
#include "topology/RingOrder.hpp"

using namespace clearfog;

TEST_CASE("topology::RingOrder: switch nodes keep index order", "[topology]") {
  const auto c = topology::ClusterTopology::build(test::switch_platform(8, 100e9, 1e-6));
  std::vector<int> index(8);
  std::iota(index.begin(), index.end(), 0);
  CHECK(c.node_ring_order() == index);
}

TEST_CASE("topology::RingOrder: the narrowest link of the ring is as wide as possible", "[topology]") {
  // A 6-cycle of fast links hidden in a full mesh of slow ones: 0-2-4-1-5-3-0.
  const config::LinkSpec slow{10e9, 0};
  const config::LinkSpec fast{40e9, 0};
  const std::vector<int> cycle{0, 2, 4, 1, 5, 3};
  std::vector<topology::nodes::CustomEdge> edges;
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b) {
      bool is_fast = false;
      for (int i = 0; i < 6; ++i)
        if ((cycle[i] == a && cycle[(i + 1) % 6] == b) || (cycle[i] == b && cycle[(i + 1) % 6] == a)) is_fast = true;
      edges.push_back({fmt::format("dev{}", a), fmt::format("dev{}", b), is_fast ? fast : slow});
    }
  const auto c = topology::ClusterTopology::build(test::custom_platform(6, {}, edges));
  const auto& ring = c.node_ring_order();
  REQUIRE(test::is_ring_of_direct_links(c.node(), ring));
  for (int i = 0; i < 6; ++i) CHECK(c.node().direct_bandwidth_Bps(ring[i], ring[(i + 1) % 6]) == fast.bandwidth_Bps);
}

TEST_CASE("topology::RingOrder: the torus snake visits neighbours", "[topology]") {
  const std::vector<int> dims{4, 3, 2};
  const auto order = topology::torus_snake_order(dims);
  const auto t = topology::TopologyGraph::build(test::torus_platform(dims, 10e9, 0));
  REQUIRE(order.size() == 24);
  for (std::size_t i = 0; i + 1 < order.size(); ++i) CHECK(t.direct_bandwidth_Bps(order[i], order[i + 1]) > 0);
}

TEST_CASE("topology::ClusterTopology: the cluster ring is each node's ring, node after node", "[topology]") {
  auto p = test::fat_tree_cluster(2, 8, {25e9, 1e-6}, 1, {25e9, 1e-6}, {50e9, 1e-6});
  p.node = test::hybrid_cube_mesh_platform(25e9, 1e-6).node;
  const auto c = topology::ClusterTopology::build(p);
  const auto ring = c.ring_order();
  REQUIRE(ring.size() == 16);
  for (int i = 0; i < 8; ++i) {
    CHECK(ring[i] == c.node_ring_order()[i]);
    CHECK(ring[8 + i] == 8 + c.node_ring_order()[i]);
  }
  // The hybrid cube-mesh's ring is not the identity, so this checks the inverse, not the index.
  CHECK(ring != std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  for (int i = 0; i < 16; ++i) CHECK(c.ring_position(ring[i]) == i);
}
