// A direct link between every pair of devices.
#include <catch2/catch.hpp>

#include "topology/NodeTopologyType.hpp"
#include "support/TopologyPlatforms.hpp"
#include "topology/ClusterTopology.hpp"
#include "topology/GraphChecks.hpp"

using namespace clearfog;

TEST_CASE("topology::FullMesh: n(n-1)/2 links, every route one hop", "[topology]") {
  const int n = 6;
  const auto t = topology::TopologyGraph::build(test::node_platform(clearfog::topology::node_topology("full-mesh"), n, 40e9, 1e-6));
  CHECK(t.links().size() == static_cast<std::size_t>(n * (n - 1) / 2));
  for (int a = 0; a < n; ++a) {
    CHECK(test::degree(t, a) == n - 1);
    for (int b = 0; b < n; ++b)
      if (a != b) CHECK(t.route(a, b).size() == 1);
  }
}

TEST_CASE("topology::FullMesh: the ring order is a ring of direct links", "[topology]") {
  for (int n : {4, 16, 20}) {
    SECTION(std::to_string(n) + " devices") {
      const auto c = topology::ClusterTopology::build(test::node_platform(clearfog::topology::node_topology("full-mesh"), n, 40e9, 1e-6));
      CHECK(test::is_ring_of_direct_links(c.node(), c.node_ring_order()));
    }
  }
}
