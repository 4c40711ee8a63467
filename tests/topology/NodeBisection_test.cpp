// Bisection bandwidth of one node. Convention: one direction, i.e. the bandwidth one half can
// send to the other at once; every cut link counts once with its per-direction bandwidth.
#include <catch2/catch.hpp>

#include "topology/NodeTopologyType.hpp"
#include "support/TopologyPlatforms.hpp"
#include "topology/NodeBisection.hpp"

using namespace clearfog;

namespace {
constexpr double kB = 10e9;

double bisection(const config::PlatformSpec& p) {
  return topology::node_bisection(topology::TopologyGraph::build(p), p.node).bandwidth_Bps;
}
}  // namespace

TEST_CASE("topology::NodeBisection: switch, n/2 device ports", "[topology]") {
  for (int n : {2, 6, 8, 32}) {
    SECTION(std::to_string(n) + " devices") { CHECK(bisection(test::switch_platform(n, kB, 1e-6)) == Approx(n / 2 * kB)); }
  }
}

TEST_CASE("topology::NodeBisection: ring, two links", "[topology]") {
  // Any balanced split of a ring cuts it at least twice; each cut link carries B one way.
  for (int n : {4, 8, 16, 64}) {
    SECTION(std::to_string(n) + " devices") {
      CHECK(bisection(test::node_platform(clearfog::topology::node_topology("ring"), n, kB, 1e-6)) == Approx(2 * kB));
    }
  }
}

TEST_CASE("topology::NodeBisection: full mesh, (n/2)^2 links", "[topology]") {
  for (int n : {4, 8, 20}) {
    SECTION(std::to_string(n) + " devices") {
      CHECK(bisection(test::node_platform(clearfog::topology::node_topology("full-mesh"), n, kB, 1e-6)) == Approx((n / 2) * (n / 2) * kB));
    }
  }
}

TEST_CASE("topology::NodeBisection: torus, the cut across the longest dimension", "[topology]") {
  // Cutting an a x b (x c) torus across a dimension of extent d > 2 cuts two rings of links per
  // line along it: 2·n/d links. With d = 2 each pair has one link: n/2 links.
  SECTION("4x4 (enumerated)") { CHECK(bisection(test::torus_platform({4, 4}, kB, 1e-6)) == Approx(2 * 16 / 4 * kB)); }
  SECTION("2x4 (enumerated)") { CHECK(bisection(test::torus_platform({2, 4}, kB, 1e-6)) == Approx(2 * 8 / 4 * kB)); }
  SECTION("4x4x4 (closed form)") {
    CHECK(bisection(test::torus_platform({4, 4, 4}, kB, 1e-6)) == Approx(2 * 64 / 4 * kB));
  }
  SECTION("8x8 (closed form)") { CHECK(bisection(test::torus_platform({8, 8}, kB, 1e-6)) == Approx(2 * 64 / 8 * kB)); }
}

TEST_CASE("topology::NodeBisection: hybrid cube-mesh, the quad split", "[topology]") {
  // Four GPUs own 4 · 6 = 24 brick ends; a split cuts 24 - 2·(bricks inside a half). A quad is
  // fully connected with 9 bricks inside (three pairs of two, three of one), the most any four
  // GPUs have, so the quad split cuts 6 bricks: the i <-> i+4 links 2 + 2 + 1 + 1.
  CHECK(bisection(test::hybrid_cube_mesh_platform(kB, 1e-6)) == Approx(6 * kB));
}

TEST_CASE("topology::NodeBisection: pcie tree, one uplink", "[topology]") {
  // The root sits on one side of the split between the two switches' blocks: one uplink is cut.
  const config::LinkSpec device{32e9, 1e-6};
  const config::LinkSpec uplink{16e9, 1e-6};
  CHECK(bisection(test::pcie_tree_platform(8, 2, device, uplink)) == Approx(uplink.bandwidth_Bps));
}
