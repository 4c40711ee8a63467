// Honest fabric defaults: a node's fabric link carries all its NICs, fabric.nodes alone resizes a
// fat tree, and a cluster file resized to one node loads.
#include <catch2/catch.hpp>

#include <string>

#include "config/ConfigLoader.hpp"
#include "config/Override.hpp"
#include "topology/ClusterTopology.hpp"
#include "topology/PlatformInfo.hpp"

using namespace clearfog;
using namespace clearfog::config;

namespace {

const std::string kCluster = std::string(CLEARFOG_SOURCE_DIR) + "/platforms/dgx-h100-cluster.yaml";

}  // namespace

TEST_CASE("config::fabric defaults: the fabric link carries every NIC of its node", "[config]") {
  for (int nics : {1, 2, 8}) {
    const auto p = load_platform(kCluster, {parse_override("fabric.nic.count=" + std::to_string(nics))});
    INFO(nics << " NICs");
    CHECK(p.fabric.link.bandwidth_Bps == Approx(nics * p.fabric.nic.bandwidth_Bps));
    // A GPU injects its NIC share into the fabric: nics x NIC / GPUs per node.
    const auto info = topology::analyse_platform(topology::ClusterTopology::build(p));
    CHECK(info.fabric_injection_per_device_Bps == Approx(nics * p.fabric.nic.bandwidth_Bps / p.node.devices));
  }
}

TEST_CASE("config::fabric defaults: fabric.nodes alone resizes a fat tree", "[config]") {
  SECTION("315 nodes: 15 per leaf switch (the largest divisor up to 16) under 15 spines") {
    const auto p = load_platform(kCluster, {parse_override("fabric.nodes=315")});
    CHECK(p.fabric.fat_tree_down == std::vector<int>{15, 315 / 15});
    CHECK(p.fabric.fat_tree_up == std::vector<int>{1, 15});
    CHECK_NOTHROW(topology::ClusterTopology::build(p));
  }
  SECTION("up to 16 nodes: one switch") {
    const auto p = load_platform(kCluster, {parse_override("fabric.nodes=12")});
    CHECK(p.fabric.fat_tree_down == std::vector<int>{12});
  }
  SECTION("one node: the cluster file's fabric keys are unused, not wrong") {
    const auto p = load_platform(kCluster, {parse_override("fabric.nodes=1")});
    CHECK(p.device_count() == p.node.devices);
    CHECK(p.collectives.intra_simple.efficiency > 0);
  }
}
