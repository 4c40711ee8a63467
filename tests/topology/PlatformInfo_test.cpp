// `clearfog platform info` figures, derived from the topology's definition.
#include <catch2/catch.hpp>

#include "support/TopologyPlatforms.hpp"
#include "topology/PlatformInfo.hpp"

using namespace clearfog;

TEST_CASE("topology::PlatformInfo: a switch node", "[topology]") {
  const double b = 300e9;
  const auto p = test::switch_platform(8, b, 1e-6);
  const auto info = topology::analyse_platform(topology::ClusterTopology::build(p));
  CHECK(info.devices == 8);
  CHECK(info.nodes == 1);
  CHECK(info.injection_bandwidth_Bps == b);
  CHECK(info.bisection_bandwidth_Bps == Approx(4 * b));
  CHECK(info.diameter_hops == 2);
  CHECK(info.ring_order.size() == 8);
  const std::string text = topology::render_platform_info(info, p);
  CHECK_THAT(text, Catch::Contains("[switch0]") && Catch::Contains("dev7") && Catch::Contains("1.2 TB/s"));
}

TEST_CASE("topology::PlatformInfo: a 4x4 torus", "[topology]") {
  const double b = 50e9;
  const auto p = test::torus_platform({4, 4}, b, 1e-6);
  const auto info = topology::analyse_platform(topology::ClusterTopology::build(p));
  CHECK(info.injection_bandwidth_Bps == Approx(4 * b));  // four neighbours
  CHECK(info.bisection_bandwidth_Bps == Approx(8 * b));
  CHECK(info.diameter_hops == 2 + 2);                    // half way round each dimension
  CHECK_THAT(info.sketch, Catch::Contains("dev0") && Catch::Contains("dev15") && Catch::Contains("~"));
}

TEST_CASE("topology::PlatformInfo: a hybrid cube-mesh lists each GPU's NVLinks", "[topology]") {
  const auto p = test::hybrid_cube_mesh_platform(25e9, 1e-6);
  const auto info = topology::analyse_platform(topology::ClusterTopology::build(p));
  CHECK(info.injection_bandwidth_Bps == Approx(6 * 25e9));
  CHECK_THAT(info.sketch, Catch::Contains("dev0: dev1 25 GB/s, dev2 25 GB/s, dev3 50 GB/s, dev4 50 GB/s"));
}

TEST_CASE("topology::PlatformInfo: a fat-tree cluster", "[topology]") {
  // 4 nodes of 8 devices, 8 NICs of 25 GB/s per node; one switch with a 100 GB/s link per node.
  const config::LinkSpec nic{25e9, 1e-6};
  const config::LinkSpec fabric{100e9, 1e-6};
  const auto p = test::fat_tree_cluster(4, 8, {300e9, 1e-6}, 8, nic, fabric);
  const auto info = topology::analyse_platform(topology::ClusterTopology::build(p));
  CHECK(info.devices == 32);
  CHECK(info.nic_bandwidth_per_device_Bps == Approx(nic.bandwidth_Bps));
  // Half the nodes reach the switch over 2 links of 100 GB/s, less than their 16 NICs of 25 GB/s.
  CHECK(info.bisection_bandwidth_Bps == Approx(2 * fabric.bandwidth_Bps));
  // NIC, leaf link up, leaf link down, NIC.
  CHECK(info.diameter_hops == 4);
  CHECK_THAT(topology::render_platform_info(info, p), Catch::Contains("fat-tree"));
}
