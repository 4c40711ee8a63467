// The DGX-1 (V100) NVLink wiring: two fully connected quads plus i <-> i+4, six bricks per GPU.
#include <catch2/catch.hpp>

#include "core/Errors.hpp"
#include "support/TopologyPlatforms.hpp"
#include "topology/ClusterTopology.hpp"
#include "topology/GraphChecks.hpp"

using namespace clearfog;

namespace {
constexpr double kBrick = 25e9;
constexpr double kLatency = 1e-6;
const auto kCubeMesh = topology::TopologyGraph::build(test::hybrid_cube_mesh_platform(kBrick, kLatency));

bool same_quad(int a, int b) { return a / 4 == b / 4; }
}  // namespace

TEST_CASE("topology::HybridCubeMesh: quads fully connected plus i <-> i+4", "[topology]") {
  // 6 links inside each quad and 4 between them.
  CHECK(kCubeMesh.links().size() == 2 * 6 + 4);
  for (int a = 0; a < 8; ++a) {
    CHECK(test::degree(kCubeMesh, a) == 4);
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      const bool linked = same_quad(a, b) || a % 4 == b % 4;
      CHECK((kCubeMesh.direct_bandwidth_Bps(a, b) > 0) == linked);
    }
  }
}

TEST_CASE("topology::HybridCubeMesh: every GPU has six NVLink bricks", "[topology]") {
  for (int a = 0; a < 8; ++a) {
    double bandwidth = 0;
    for (int b = 0; b < 8; ++b)
      if (b != a) bandwidth += kCubeMesh.direct_bandwidth_Bps(a, b);
    CHECK(bandwidth == Approx(6 * kBrick));
  }
}

TEST_CASE("topology::HybridCubeMesh: the widest route takes the double-brick links", "[topology]") {
  // 0 -> 7 in two hops: 0-3-7 crosses the single brick 3-7, 0-4-7 two double-brick pairs.
  CHECK(test::route_vertices(kCubeMesh, 0, 7) == std::vector<topology::Vertex>{0, 4, 7});
  CHECK(kCubeMesh.route_bandwidth_Bps(0, 7) == 2 * kBrick);
  // 0 -> 5 has two-hop paths of one brick (0-1-5, 0-4-5), but the double-brick pairs form the
  // cycle 0-3-2-1-5-6-7-4-0, so a four-hop path keeps two bricks all the way.
  CHECK(kCubeMesh.route(0, 5).size() == 4);
  CHECK(kCubeMesh.route_bandwidth_Bps(0, 5) == 2 * kBrick);
  CHECK(kCubeMesh.route_latency_s(0, 5) == Approx(4 * kLatency));
}

TEST_CASE("topology::HybridCubeMesh: the ring uses only double-brick NVLinks", "[topology]") {
  const auto cluster = topology::ClusterTopology::build(test::hybrid_cube_mesh_platform(kBrick, kLatency));
  const auto& ring = cluster.node_ring_order();
  REQUIRE(test::is_ring_of_direct_links(cluster.node(), ring));
  for (int i = 0; i < 8; ++i) CHECK(cluster.node().direct_bandwidth_Bps(ring[i], ring[(i + 1) % 8]) == 2 * kBrick);
}

TEST_CASE("topology::HybridCubeMesh: rejects a device count other than 8", "[topology]") {
  for (int devices : {4, 16}) {
    SECTION(std::to_string(devices) + " devices") {
      auto p = test::hybrid_cube_mesh_platform(kBrick, kLatency);
      p.node.devices = devices;
      REQUIRE_THROWS_WITH(topology::TopologyGraph::build(p),
                          Catch::Contains("hybrid-cube-mesh") && Catch::Contains(std::to_string(devices)));
    }
  }
}

TEST_CASE("topology::HybridCubeMesh: linked GPUs talk over their own link, even a one-brick one", "[topology]") {
  // 0 -> 1 has a path of double bricks (0-3-2-1), but peer-to-peer goes over the direct brick.
  CHECK(test::route_vertices(kCubeMesh, 0, 1) == std::vector<topology::Vertex>{0, 1});
  CHECK(kCubeMesh.route_bandwidth_Bps(0, 1) == kBrick);
}

TEST_CASE("topology::HybridCubeMesh: the channels' rings use all six bricks of every GPU", "[topology]") {
  const auto cluster = topology::ClusterTopology::build(test::hybrid_cube_mesh_platform(kBrick, kLatency));
  const auto& order = cluster.node_ring_order();
  const topology::RingFamily& family = cluster.ring_family(order);
  // Six bricks per GPU and direction carry at most 6 rings of one brick; NCCL finds that many.
  CHECK(family.ring_Bps == kBrick);
  CHECK(family.rings.size() == 6);
  CHECK(family.rings.front() == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});  // the ring order comes first
}
