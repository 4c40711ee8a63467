// `algorithm: best` (also auto): the tuning table must pick what the alpha-beta model says is fastest, and
// the cache must give back the same table.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "driver/CollectiveRun.hpp"
#include "driver/TuningTable.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

TEST_CASE("driver::TuningTable: latency-bound sizes avoid the ring, bandwidth-bound sizes match it",
          "[driver][simulation]") {
  // p = 8 on a switch, alpha = 2 us per step: a ring all-reduce pays 2(p-1) = 14 alphas, recursive
  // halving-doubling 2 log2 p = 6, both move 2(p-1)/p n per rank.
  const auto cluster = topology::ClusterTopology::build(test::switch_platform(8, 100e9, 1e-6));
  const auto table = driver::TuningTable::build(cluster, {0, 1, 2, 3, 4, 5, 6, 7}, config::Fidelity::Step, {CollectiveOp::AllReduce});
  const double alpha = 2e-6;

  const auto small = table.select(CollectiveOp::AllReduce, 1024);
  CHECK(small.algorithm != clearfog::collectives::collective_algorithm("ring"));
  CHECK(small.time_s < 14 * alpha);
  const auto ring_small = table.select(CollectiveOp::AllReduce, 1024, clearfog::collectives::collective_algorithm("ring"));
  CHECK(ring_small.time_s == Approx(14 * alpha + 2.0 * 7 / 8 * 1024 / 100e9).epsilon(1e-3));

  // At 1 GiB the bandwidth term dominates: nothing beats 2(p-1)/p n / B by more than latencies.
  const double n = 1024.0 * 1024 * 1024;
  const auto big = table.select(CollectiveOp::AllReduce, n);
  CHECK(big.time_s >= 2.0 * 7 / 8 * n / 100e9 * (1 - 1e-3));
  CHECK(big.time_s <= table.select(CollectiveOp::AllReduce, n, clearfog::collectives::collective_algorithm("ring")).time_s);

  // Rows between tuned sizes use the size below.
  CHECK(table.select(CollectiveOp::AllReduce, 3000).algorithm == small.algorithm);
  REQUIRE_THROWS(table.select(CollectiveOp::AllToAll, 1024));
}

TEST_CASE("driver::TuningTable: the cache returns the table it stored", "[driver][simulation]") {
  // One directory per process: test runs of other checkouts may share the temporary directory.
  const auto dir = std::filesystem::temp_directory_path() / ("clearfog-tuning-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  ::setenv("CLEARFOG_CACHE_DIR", dir.c_str(), 1);
  const auto cluster = topology::ClusterTopology::build(test::switch_platform(4, 100e9, 1e-6));
  const auto built = driver::cached_tuning_table(cluster, {0, 1, 2, 3}, config::Fidelity::Fluid, {CollectiveOp::AllGather});
  REQUIRE(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
  const auto cached = driver::cached_tuning_table(cluster, {0, 1, 2, 3}, config::Fidelity::Fluid, {CollectiveOp::AllGather});
  CHECK(cached.to_json() == built.to_json());
  // Another platform gets another file.
  driver::cached_tuning_table(topology::ClusterTopology::build(test::switch_platform(4, 50e9, 1e-6)), {0, 1, 2, 3},
                              config::Fidelity::Fluid, {CollectiveOp::AllGather});
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 2);
  std::filesystem::remove_all(dir);
}
