// 2D and 3D meshes: tori without the wrap-around links (Dojo's training tile, a board of chips).
#include <catch2/catch.hpp>

#include <fmt/ranges.h>

#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"
#include "support/ConfigDiagnostics.hpp"
#include "support/TopologyPlatforms.hpp"
#include "topology/ClusterTopology.hpp"
#include "topology/GraphChecks.hpp"
#include "topology/NodeBisection.hpp"
#include "topology/nodes/MeshNode.hpp"
#include "topology/nodes/TorusNode.hpp"

using namespace clearfog;

namespace {

config::PlatformSpec mesh_platform(std::vector<int> dims, double bandwidth_Bps) {
  auto p = test::torus_platform(std::move(dims), bandwidth_Bps, 1e-6);
  p.name = "test mesh";
  p.node.topology = topology::node_topology("mesh");
  return p;
}

/// Links a mesh has by definition: along each dimension of extent e, e - 1 per line of devices.
std::size_t expected_links(const std::vector<int>& dims) {
  int n = 1;
  for (int e : dims) n *= e;
  std::size_t links = 0;
  for (int e : dims) links += static_cast<std::size_t>(n / e * (e - 1));
  return links;
}

}  // namespace

TEST_CASE("topology::Mesh: every device links to its neighbours, the ends do not wrap", "[topology]") {
  for (const std::vector<int>& dims : std::vector<std::vector<int>>{{5, 5}, {4, 8}, {2, 3}, {3, 3, 2}}) {
    SECTION(fmt::format("{}", fmt::join(dims, "x"))) {
      const auto t = topology::TopologyGraph::build(mesh_platform(dims, 100e9));
      CHECK(t.links().size() == expected_links(dims));
      // A corner has one neighbour per dimension of extent > 1; the row's far end is not one.
      int corner_degree = 0;
      for (int e : dims) corner_degree += e > 1 ? 1 : 0;
      CHECK(test::degree(t, 0) == corner_degree);
      if (dims[0] > 2) CHECK(t.direct_bandwidth_Bps(0, dims[0] - 1) == 0);
    }
  }
}

TEST_CASE("topology::Mesh: the ring is a cycle of neighbours where an extent is even", "[topology]") {
  // 4x6 and 6x5 (24 and 30 devices) are beyond the search: they take mesh_cycle.
  for (const std::vector<int>& dims : std::vector<std::vector<int>>{{4, 6}, {6, 5}, {2, 2}, {4, 4}}) {
    SECTION(fmt::format("{}", fmt::join(dims, "x"))) {
      const auto c = topology::ClusterTopology::build(mesh_platform(dims, 100e9));
      CHECK(test::is_ring_of_direct_links(c.node(), c.node_ring_order()));
    }
  }
  CHECK(topology::nodes::mesh_cycle({5, 5}).empty());  // odd by odd: no such cycle exists
}

TEST_CASE("topology::Mesh: bisection, n/d_max links across the longest dimension", "[topology]") {
  const double b = 10e9;
  // 4x4 is enumerated exactly, 6x6 and 4x8 take the closed form: both must be n/d_max·B.
  for (const std::vector<int>& dims : std::vector<std::vector<int>>{{4, 4}, {6, 6}, {4, 8}}) {
    SECTION(fmt::format("{}", fmt::join(dims, "x"))) {
      const auto p = mesh_platform(dims, b);
      const int longest = std::max(dims[0], dims[1]);
      const auto cut = topology::node_bisection(topology::TopologyGraph::build(p), p.node);
      CHECK(cut.bandwidth_Bps == Approx(static_cast<double>(p.node.devices) / longest * b));
    }
  }
}

TEST_CASE("topology::Mesh: node.mesh.dims is read and checked like a torus's", "[topology][config]") {
  const auto mesh = [](const std::string& devices, const std::string& dims) {
    return std::vector<config::Override>{config::parse_override("node.topology=mesh"),
                                         config::parse_override("node.devices=" + devices),
                                         config::parse_override("node.mesh.dims=" + dims)};
  };
  const auto file = test::config_fixture("good/platform.yaml");
  const auto p = config::load_platform(file, mesh("8", "[2,4]"));
  CHECK(p.node.topology.name() == "mesh");
  CHECK(p.node.params_as<topology::nodes::GridParams>().dims == std::vector<int>{2, 4});
  CHECK_THROWS_WITH(config::load_platform(file, mesh("8", "[3,3]")), Catch::Contains("node.mesh.dims") &&
                                                                         Catch::Contains("must equal node.devices 8"));
  const std::vector<config::Override> torus_key = {config::parse_override("node.topology=mesh"),
                                                   config::parse_override("node.devices=8"),
                                                   config::parse_override("node.torus.dims=[2,4]")};
  CHECK_THROWS_AS(config::load_platform(file, torus_key), ConfigError);  // a torus's key on a mesh
}
