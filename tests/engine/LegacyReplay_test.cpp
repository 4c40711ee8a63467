// The actor-free replay (engine::simulate) against the actor-based one it replaced
// (engine::simulate_legacy) on the validation scenarios: both carry out the same plan on the same
// SimGrid platform with the same flows, so every op of every rank must start and end at the same
// simulated time (relative difference < 1e-9), with and without the symmetric replay. Large
// scenarios are shrunk by overrides (fewer micro-batches, fewer replicas) to keep the legacy
// replay short; their layouts (tp, pp, schedule, ZeRO, fidelity, granularity) are kept.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "support/ReplayTimes.hpp"

using namespace clearfog;

namespace {

/// The DGX A100 clusters' two-level fat tree cut to 8 nodes: 4 per leaf switch, 4 spines.
constexpr auto kEightNodeTree = "{down: [4, 2], up: [1, 4], parallel: [1, 1]}";

struct Case {
  std::string file;
  std::vector<config::Override> overrides;
};

void check_same_times(const Case& c) {
  INFO(c.file);
  const auto s = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/" + c.file, c.overrides);
  driver::RunOptions legacy_options;
  legacy_options.legacy_replay = true;
  const auto legacy = test::replay_times(s, legacy_options);
  const auto full = test::replay_times(s, false);
  const auto symmetric = test::replay_times(s, true);
  INFO("symmetric replay: " << symmetric.mode << ", " << symmetric.detail);
  REQUIRE(legacy.step_s > 0);
  CHECK(full.mode == "full");
  CHECK(std::abs(full.step_s - legacy.step_s) <= 1e-9 * legacy.step_s);
  CHECK(test::worst_difference(full, legacy) < 1e-9);
  CHECK(std::abs(symmetric.step_s - legacy.step_s) <= 1e-9 * legacy.step_s);
  CHECK(test::worst_difference(symmetric, legacy) < 1e-9);
}

}  // namespace

TEST_CASE("engine::simulate: the actor-free replay gives the legacy replay's op times on the validation scenarios",
          "[engine][simulation][validation]") {
  const std::vector<Case> cases = {
      {"scenarios/validation/korthikanti-22b-layer.yaml", {}},
      {"scenarios/validation/resnet50-dgx-a100.yaml", {}},
      // The legacy replay does not model interference: the A100-40GB cluster's collectives.interference off.
      {"scenarios/validation/mpt-fsdp-base.yaml", {{"platform.collectives.interference.units", "0"}}},
      // 18.4B row: tp 8 x dp 32 with DDP overlap, one micro-batch per replica.
      // The legacy replay does not model interference: the cluster's collectives.interference off.
      {"scenarios/validation/megatron-sc21-base.yaml",
       {{"training.global_batch", "256"}, {"platform.collectives.interference.units", "0"}}},
      // The same with an interleaved pipeline: tp 8 x pp 4 (v = 2) x dp 2 on 8 nodes, chunk granularity.
      // (megatron-2021: blocking pipeline sends.)
      {"scenarios/validation/megatron-sc21-base.yaml",
       {{"training.global_batch", "16"},
        {"platform.collectives.interference.units", "0"},
        {"training.micro_batch", "1"},
        {"parallelism.pp", "4"},
        {"parallelism.dp", "2"},
        {"platform.fabric.nodes", "8"},
        {"platform.fabric.fat_tree", kEightNodeTree},
        {"parallelism.schedule", "interleaved"},
        {"parallelism.virtual_stages", "2"},
        {"simulation.granularity", "chunk"}}},
  };
  for (const auto& c : cases) check_same_times(c);
}

TEST_CASE("engine::simulate: symmetric and full replay agree on the 3D validation layout where symmetry is proven",
          "[engine][symmetry][simulation][validation]") {
  // GPT-3 175B's layout shrunk (tp 8 x pp 4 x dp 2, 16 layers, on 8 nodes of the DGX A100 cluster): the route check
  // proves the data- and tensor-parallel shifts, so one rank in 16 is replayed.
  const auto s = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/gpt3-175b-1024gpu.yaml",
                                       {{"parallelism.pp", "4"},
                                        {"parallelism.dp", "2"},
                                        {"platform.fabric.nodes", "8"},
                                        {"platform.fabric.fat_tree", kEightNodeTree},
                                        {"training.global_batch", "16"},
                                        {"workload.layers", "16"}});
  const auto full = test::replay_times(s, false);
  const auto symmetric = test::replay_times(s, true);
  REQUIRE(symmetric.mode == "symmetric");
  CHECK_THAT(symmetric.detail, Catch::Contains("16 isomorphic ranks per class"));
  CHECK(std::abs(symmetric.step_s - full.step_s) <= 1e-9 * full.step_s);
  CHECK(test::worst_difference(symmetric, full) < 1e-9);
}
