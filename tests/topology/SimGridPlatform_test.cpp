// The SimGrid platform built from a ClusterTopology, checked with simulated messages against
// times derived from the links they cross.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <simgrid/s4u/Engine.hpp>

#include <chrono>
#include <fstream>
#include <sstream>

#include "topology/NodeTopologyType.hpp"
#include "engine/ForkedRun.hpp"
#include "support/TopologyPlatforms.hpp"
#include "topology/SimGridPlatform.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;
using program::Transfer;

namespace {

constexpr config::LinkSpec kDeviceLink{100e9, 1e-6};
constexpr config::LinkSpec kNic{25e9, 2e-6};
constexpr config::LinkSpec kFabricLink{100e9, 0.5e-6};
constexpr double kBytes = 100e6;

/// Two nodes of 4 devices with 2 NICs each (devices 0-1 on NIC 0, 2-3 on NIC 1), one fat-tree
/// switch between them.
config::PlatformSpec two_node_fat_tree() { return test::fat_tree_cluster(2, 4, kDeviceLink, 2, kNic, kFabricLink); }

/// Each pair (src, dst) sends kBytes at t = 0: every rank posts all its transfers in one exchange.
program::Plan messages(int ranks, const std::vector<std::pair<int, int>>& pairs) {
  std::vector<std::vector<Transfer>> sends(ranks), recvs(ranks);
  std::uint64_t tag = 0;
  for (const auto& [src, dst] : pairs) {
    ++tag;
    sends[src].push_back(Transfer{dst, kBytes, tag});
    recvs[dst].push_back(Transfer{src, kBytes, tag});
  }
  program::Plan plan;
  plan.ranks.resize(ranks);
  for (int r = 0; r < ranks; ++r)
    if (!sends[r].empty() || !recvs[r].empty())
      plan.ranks[r].add_exchange(Stream::Comm, Category::DataParallelComm, "messages", sends[r], recvs[r]);
  return plan;
}

// Across nodes a message crosses its NIC, the leaf link up to the fat-tree switch, the leaf link
// down, and the destination's NIC.
constexpr double kCrossNodeLatency_s = 2 * kNic.latency_s + 2 * kFabricLink.latency_s;

}  // namespace

TEST_CASE("topology::SimGridPlatform: a message across nodes is limited by one NIC", "[topology][simulation]") {
  const auto c = topology::ClusterTopology::build(two_node_fat_tree());
  REQUIRE(c.device_count() == 8);
  // Device 0 of node 0 to device 0 of node 1: although each node has two NICs, one pair uses one.
  const auto r = engine::simulate_forked(c, messages(8, {{0, 4}}));
  const double bottleneck = std::min(kNic.bandwidth_Bps, kFabricLink.bandwidth_Bps);
  CHECK(r.makespan_s == Approx(kCrossNodeLatency_s + kBytes / bottleneck).epsilon(1e-6));
}

TEST_CASE("topology::SimGridPlatform: devices on one rail share its NIC, others use their own",
          "[topology][simulation]") {
  const auto c = topology::ClusterTopology::build(two_node_fat_tree());
  REQUIRE(c.nic_of(0) == c.nic_of(1));
  REQUIRE(c.nic_of(0) != c.nic_of(2));
  SECTION("same NIC: the two messages split it") {
    const auto r = engine::simulate_forked(c, messages(8, {{0, 4}, {1, 5}}));
    CHECK(r.makespan_s == Approx(kCrossNodeLatency_s + 2 * kBytes / kNic.bandwidth_Bps).epsilon(1e-6));
  }
  SECTION("different NICs: each message has a whole NIC (the fabric link carries both)") {
    REQUIRE(kFabricLink.bandwidth_Bps >= 2 * kNic.bandwidth_Bps);
    const auto r = engine::simulate_forked(c, messages(8, {{0, 4}, {2, 6}}));
    CHECK(r.makespan_s == Approx(kCrossNodeLatency_s + kBytes / kNic.bandwidth_Bps).epsilon(1e-6));
  }
}

TEST_CASE("topology::SimGridPlatform: inside a node of a cluster the node's own links are used",
          "[topology][simulation]") {
  const auto c = topology::ClusterTopology::build(two_node_fat_tree());
  const auto r = engine::simulate_forked(c, messages(8, {{4, 5}}));
  CHECK(r.makespan_s == Approx(2 * kDeviceLink.latency_s + kBytes / kDeviceLink.bandwidth_Bps).epsilon(1e-6));
}

TEST_CASE("topology::SimGridPlatform: a reducing switch is one link away from each device", "[topology][simulation]") {
  auto p = test::switch_platform(4, kDeviceLink.bandwidth_Bps, kDeviceLink.latency_s);
  p.node.in_switch_reduction = true;
  const auto c = topology::ClusterTopology::build(p);
  REQUIRE(c.endpoint_count() == 5);
  const int sw = *c.reduction_switch(0);
  const double one_link_s = kDeviceLink.latency_s + kBytes / kDeviceLink.bandwidth_Bps;
  SECTION("device to switch") { CHECK(engine::simulate_forked(c, messages(5, {{1, sw}})).makespan_s == Approx(one_link_s).epsilon(1e-6)); }
  SECTION("switch to device") { CHECK(engine::simulate_forked(c, messages(5, {{sw, 2}})).makespan_s == Approx(one_link_s).epsilon(1e-6)); }
  SECTION("two devices send to the switch at once over their own ports") {
    CHECK(engine::simulate_forked(c, messages(5, {{0, sw}, {3, sw}})).makespan_s == Approx(one_link_s).epsilon(1e-6));
  }
}

TEST_CASE("topology::SimGridPlatform: torus and dragonfly fabrics carry messages", "[topology][simulation]") {
  auto p = two_node_fat_tree();
  SECTION("torus") {
    // 2 x 2 nodes: SimGrid links each node to its +1 neighbour per dimension; node 0 to node 3
    // crosses two fabric links (one per dimension).
    p.fabric.nodes = 4;
    p.fabric.topology = config::FabricTopology::Torus;
    p.fabric.torus_dims = {2, 2};
    const auto c = topology::ClusterTopology::build(p);
    const auto r = engine::simulate_forked(c, messages(16, {{0, 12}}));
    CHECK(r.makespan_s == Approx(2 * kNic.latency_s + 2 * kFabricLink.latency_s + kBytes / kNic.bandwidth_Bps)
                              .epsilon(1e-6));
  }
  SECTION("dragonfly") {
    p.fabric.nodes = 2 * 2 * 2 * 2;
    p.fabric.topology = config::FabricTopology::Dragonfly;
    p.fabric.dragonfly = {2, 1, 2, 1, 2, 1, 2};
    const auto c = topology::ClusterTopology::build(p);
    const auto r = engine::simulate_forked(c, messages(64, {{0, 63}}));
    CHECK(r.makespan_s > kBytes / kNic.bandwidth_Bps);
    CHECK(r.makespan_s < kBytes / kNic.bandwidth_Bps + 2 * kNic.latency_s + 7 * kFabricLink.latency_s + 1e-9);
  }
}

TEST_CASE("topology::ClusterTopology: rejects fabrics that do not match the nodes", "[topology]") {
  SECTION("leaf count") {
    auto p = two_node_fat_tree();
    p.fabric.fat_tree_down = {3};
    REQUIRE_THROWS_WITH(topology::ClusterTopology::build(p), Catch::Contains("describe 3 nodes"));
  }
  SECTION("no NIC") {
    auto p = two_node_fat_tree();
    p.fabric.nic_count = 0;
    REQUIRE_THROWS_WITH(topology::ClusterTopology::build(p), Catch::Contains("nic_count"));
  }
  SECTION("reduction without a switch") {
    auto p = test::node_platform(clearfog::topology::node_topology("ring"), 4, 10e9, 0);
    p.node.in_switch_reduction = true;
    REQUIRE_THROWS_WITH(topology::ClusterTopology::build(p), Catch::Contains("in_switch_reduction"));
  }
}

namespace {

long rss_kB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

/// Builds a cluster of `nodes` DGX-like nodes (8 devices on a switch, 8 NICs) on a two-level fat
/// tree of 16 + 32 ports in a child process; returns "hosts seconds rss_growth_kB".
std::string build_large_cluster(int nodes) {
  auto p = test::fat_tree_cluster(nodes, 8, kDeviceLink, 8, kNic, kFabricLink);
  p.fabric.fat_tree_down = {16, nodes / 16};
  p.fabric.fat_tree_up = {4, 8};
  p.fabric.fat_tree_parallel = {1, 1};
  return engine::run_forked([p] {
    const auto start = std::chrono::steady_clock::now();
    const long rss_before = rss_kB();
    std::vector<std::string> args = {"clearfog", "--log=root.thresh:critical"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    int argc = static_cast<int>(argv.size());
    simgrid::s4u::Engine engine(&argc, argv.data());
    const auto cluster = topology::ClusterTopology::build(p);
    const auto platform = topology::build_simgrid_platform(cluster, 1e12);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    return fmt::format("{} {} {}", platform.hosts.size(), elapsed.count(), rss_kB() - rss_before);
  });
}

}  // namespace

TEST_CASE("topology::SimGridPlatform: a 4096-device fat tree builds quickly", "[topology]") {
  std::istringstream result(build_large_cluster(512));
  std::size_t hosts = 0;
  double seconds = 0;
  long rss_growth_kB = 0;
  result >> hosts >> seconds >> rss_growth_kB;
  CHECK(hosts == 4096);
  // Well under a second on a quiet machine; the bound leaves room for loaded CI runners.
  CHECK(seconds < 5.0);
  CHECK(rss_growth_kB < 512 * 1024);
}

TEST_CASE("topology::SimGridPlatform: build time and memory of large clusters", "[.][scale]") {
  for (int nodes : {128, 512, 2048}) {
    std::istringstream result(build_large_cluster(nodes));
    std::size_t hosts = 0;
    double seconds = 0;
    long rss_growth_kB = 0;
    result >> hosts >> seconds >> rss_growth_kB;
    WARN(fmt::format("{} devices: {:.3f} s, RSS +{:.1f} MiB", hosts, seconds, static_cast<double>(rss_growth_kB) / 1024.0));
    CHECK(hosts == static_cast<std::size_t>(8 * nodes));
  }
}
