// A bidirectional ring of devices: traffic goes the short way round, through other devices.
#include <catch2/catch.hpp>

#include <algorithm>

#include "topology/NodeTopologyType.hpp"
#include "support/TopologyPlatforms.hpp"
#include "topology/ClusterTopology.hpp"
#include "topology/GraphChecks.hpp"

using namespace clearfog;

TEST_CASE("topology::Ring: two neighbours each, routes the short way round", "[topology]") {
  const int n = 8;
  const double b = 50e9;
  const auto t = topology::TopologyGraph::build(test::node_platform(clearfog::topology::node_topology("ring"), n, b, 1e-6));
  CHECK(t.links().size() == static_cast<std::size_t>(n));
  for (int a = 0; a < n; ++a) {
    CHECK(test::degree(t, a) == 2);
    for (int k = 1; k < n; ++k) {
      const int b_dev = (a + k) % n;
      CHECK(t.route(a, b_dev).size() == static_cast<std::size_t>(std::min(k, n - k)));
      CHECK(t.route_bandwidth_Bps(a, b_dev) == b);
    }
  }
}

TEST_CASE("topology::Ring: two devices share one link", "[topology]") {
  const auto t = topology::TopologyGraph::build(test::node_platform(clearfog::topology::node_topology("ring"), 2, 50e9, 1e-6));
  CHECK(t.links().size() == 1);
}

TEST_CASE("topology::Ring: the ring order is the ring", "[topology]") {
  for (int n : {5, 8, 24}) {
    SECTION(std::to_string(n) + " devices") {
      const auto c = topology::ClusterTopology::build(test::node_platform(clearfog::topology::node_topology("ring"), n, 50e9, 1e-6));
      CHECK(test::is_ring_of_direct_links(c.node(), c.node_ring_order()));
    }
  }
}
