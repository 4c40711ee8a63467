// Symmetric replay: where the route check proves data- or tensor-parallel ranks isomorphic, the
// replay of one representative per class gives every op of every rank the same start and end as the
// full replay (relative difference < 1e-9); where replicas' routes differ, the check refuses.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "support/ReplayTimes.hpp"
#include "support/TopologyPlatforms.hpp"

using namespace clearfog;

namespace {

using test::replay_times;
using test::worst_difference;

constexpr config::LinkSpec kDeviceLink{100e9, 1e-6};
constexpr config::LinkSpec kNic{25e9, 2e-6};
constexpr config::LinkSpec kFabricLink{50e9, 0.5e-6};

/// tp x pp x dp of the small GPT, fluid collectives, chunk granularity.
config::ScenarioSpec scenario(config::PlatformSpec platform, int tp, int pp, int dp) {
  config::ScenarioSpec s;
  s.name = "symmetry test";
  s.platform = std::move(platform);
  s.workload = test::small_gpt();
  s.training.micro_batch = 1;
  s.training.global_batch = 4 * dp;
  s.parallelism.tp = tp;
  s.parallelism.pp = pp;
  s.parallelism.dp = dp;
  s.collectives.fidelity = config::Fidelity::Fluid;
  s.collectives.algorithm = clearfog::collectives::collective_algorithm("ring");
  s.granularity = config::Granularity::Chunk;
  return s;
}

}  // namespace

TEST_CASE("engine::simulate: symmetric replay of a 3D plan gives every op the full replay's times",
          "[engine][symmetry][simulation]") {
  // 4 nodes of 2 devices, rail-optimized (a NIC per device) on one fat-tree switch: replica d and
  // stage s sit on node s + 2d, so shifting the replica or the tensor rank maps every route onto a
  // route of the same links. The node's fabric link carries both tensor ranks' traffic: a link the
  // tensor-parallel shift leaves in place, which the quotient replays at half its bandwidth.
  const auto s = scenario(test::fat_tree_cluster(4, 2, kDeviceLink, 2, kNic, kFabricLink), 2, 2, 2);
  const auto full = replay_times(s, false);
  const auto symmetric = replay_times(s, true);
  CHECK(full.mode == "full");
  REQUIRE(symmetric.mode == "symmetric");
  CHECK_THAT(symmetric.detail, Catch::Contains("4 isomorphic ranks per class") &&
                                   Catch::Contains("data-parallel x2") && Catch::Contains("tensor-parallel x2"));
  std::uint64_t total_ops = 0;
  for (const auto& rank : full.ops) total_ops += rank.size();
  CHECK(symmetric.simulated_ops * 4 == total_ops);
  CHECK(std::abs(symmetric.step_s - full.step_s) <= 1e-9 * full.step_s);
  CHECK(worst_difference(symmetric, full) < 1e-9);
}

TEST_CASE("engine::simulate: symmetric replay of data parallelism on one switch matches the full replay",
          "[engine][symmetry][simulation]") {
  // Plain data parallelism: 8 replicas joined by fluid ring all-reduces.
  auto s = scenario(test::switch_platform(8, 100e9, 1e-6), 1, 1, 8);
  const auto full = replay_times(s, false);
  const auto symmetric = replay_times(s, true);
  REQUIRE(symmetric.mode == "symmetric");
  CHECK_THAT(symmetric.detail, Catch::Contains("8 isomorphic ranks per class"));
  CHECK(std::abs(symmetric.step_s - full.step_s) <= 1e-9 * full.step_s);
  CHECK(worst_difference(symmetric, full) < 1e-9);
}

TEST_CASE("engine::simulate: replicas that share a link unevenly are replayed in full",
          "[engine][symmetry][simulation]") {
  // 4 devices under 2 PCIe switches (devices 0-1 and 2-3), tp 1 x dp 4: the ring of the
  // gradient all-reduce goes 0 -> 1 inside a switch but 1 -> 2 through both uplinks, which replica
  // 1's and replica 3's messages share; shifting the replicas maps a 2-link route onto a 4-link one.
  const auto platform = test::pcie_tree_platform(4, 2, {32e9, 1e-6}, {32e9, 1e-6});
  const auto s = scenario(platform, 1, 1, 4);
  const auto r = replay_times(s, true);
  CHECK(r.mode == "full");
  CHECK_THAT(r.detail, Catch::Contains("data-parallel ranks see different routes"));
}

TEST_CASE("engine::simulate: replicas that share a link evenly keep exact times", "[engine][symmetry][simulation]") {
  // The same PCIe tree with the replicas interleaved (dp varies fastest): replica 0 is devices 0
  // and 2, replica 1 devices 1 and 3, so both replicas' tensor-parallel messages cross both
  // uplinks. The data-parallel shift leaves the uplinks in place: each stands for two flows, and
  // the quotient gives it half its bandwidth.
  auto s = scenario(test::pcie_tree_platform(4, 2, {32e9, 1e-6}, {32e9, 1e-6}), 2, 1, 2);
  s.parallelism.order = {config::ParallelAxis::Data, config::ParallelAxis::Tensor, config::ParallelAxis::Pipeline};
  const auto full = replay_times(s, false);
  const auto symmetric = replay_times(s, true);
  REQUIRE(symmetric.mode == "symmetric");
  CHECK_THAT(symmetric.detail, Catch::Contains("data-parallel x2"));
  CHECK(worst_difference(symmetric, full) < 1e-9);
}
