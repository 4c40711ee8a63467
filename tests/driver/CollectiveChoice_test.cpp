// What NCCL's tuner is told about a group on a shipped platform, and how a requested algorithm
// resolves. NCCL's ratings: 20 GB/s per NVLink of 25 (src/graph/topo.h, NCCL 2.18.5).
#include <catch2/catch.hpp>

#include <numeric>
#include <string>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "config/ConfigLoader.hpp"
#include "driver/CollectiveChoice.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

namespace {

topology::ClusterTopology platform(const std::string& file) {
  return topology::ClusterTopology::build(config::load_platform(std::string(CLEARFOG_SOURCE_DIR) + "/platforms/" + file));
}

std::vector<int> first(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

}  // namespace

TEST_CASE("driver::nccl_system: NCCL's view of the shipped DGX nodes", "[driver]") {
  const auto a100 = driver::nccl_system(platform("dgx-a100.yaml"), first(8));
  CHECK(a100.gpu_GBps == Approx(300 * 20.0 / 25));  // 12 NVLinks x 20 GB/s
  CHECK(a100.arch == collectives::NcclArch::Ampere);
  CHECK_FALSE(a100.nvls);
  CHECK(a100.protocols == std::array<bool, 3>{true, true, true});
  const auto h100 = driver::nccl_system(platform("dgx-h100.yaml"), first(8));
  CHECK(h100.gpu_GBps == Approx(450 * 20.0 / 25));  // 18 NVLinks x 20 GB/s
  CHECK(h100.arch == collectives::NcclArch::Hopper);
  CHECK(h100.nvls);
}

TEST_CASE("driver::nccl_system: a group across nodes sees the NICs of its GPUs", "[driver]") {
  const auto cluster = platform("dgx-a100-cluster.yaml");
  // A data-parallel group of a tp = 8 run: GPU 3 of four nodes, so one rail, one NIC.
  const auto rail = driver::nccl_system(cluster, {3, 11, 19, 27});
  CHECK(rail.nodes == 4);
  CHECK(rail.nics == 1);
  CHECK(rail.nic_GBps == Approx(24));
  // Across nodes the file has only Simple's figures: LL and LL128 are never chosen there.
  CHECK(rail.protocols == std::array<bool, 3>{false, false, true});
  const auto two_nodes = driver::nccl_system(cluster, first(16));
  CHECK(two_nodes.nics == 8);
  CHECK(driver::ranks_per_node(cluster, first(16)) == 8);
  CHECK(driver::ranks_per_node(cluster, {3, 11, 19, 27}) == 1);
  CHECK(driver::ranks_per_node(cluster, {0, 1, 8}) == 0);  // unequal runs
}

TEST_CASE("driver::choose_collective: explicit algorithms where they can run, nccl elsewhere", "[driver]") {
  const auto h100 = platform("dgx-h100-cluster.yaml");
  // In-switch inside one node: kept, with NVLS's 16 channels.
  const auto in_node = driver::choose_collective(h100, CollectiveOp::AllReduce, first(8), 1 << 30,
                                                 clearfog::collectives::collective_algorithm("in-switch"));
  CHECK(in_node.algorithm == clearfog::collectives::collective_algorithm("in-switch"));
  CHECK(in_node.channels == 16);
  // Across nodes it cannot run: the collective takes NCCL's choice instead.
  CHECK_FALSE(driver::can_run(h100, CollectiveOp::AllReduce, first(16), clearfog::collectives::collective_algorithm("in-switch")));
  const auto across = driver::choose_collective(h100, CollectiveOp::AllReduce, first(16), 1 << 30,
                                                clearfog::collectives::collective_algorithm("in-switch"));
  CHECK(across.algorithm != clearfog::collectives::collective_algorithm("in-switch"));
  // All-to-all is point-to-point: pairwise direct, whatever was asked.
  CHECK(driver::choose_collective(h100, CollectiveOp::AllToAll, first(8), 1 << 20, clearfog::config::CollectiveAlgorithm::nccl()).algorithm ==
        clearfog::collectives::collective_algorithm("direct"));
  CHECK_THROWS(driver::choose_collective(h100, CollectiveOp::AllReduce, first(8), 1 << 20, clearfog::config::CollectiveAlgorithm::best()));
}

TEST_CASE("driver::choose_collective: NCCL's estimate is of what runs, none where NCCL has no such algorithm",
          "[driver]") {
  const auto cluster = platform("dgx-a100.yaml");
  const auto members = first(8);
  const collectives::NcclTuner tuner(driver::nccl_system(cluster, members));
  const double bytes = 1 << 20;
  // NCCL's own pick: its estimate of that pick.
  const auto own = driver::choose_collective(cluster, CollectiveOp::AllReduce, members, bytes, clearfog::config::CollectiveAlgorithm::nccl());
  REQUIRE(own.nccl_estimate_s.has_value());
  CHECK(*own.nccl_estimate_s == Approx(tuner.choose(CollectiveOp::AllReduce, bytes).model_time_s));
  // A protocol forced on NCCL's ring (what `--algo best` tries): NCCL's time for exactly that pair.
  for (const auto protocol : config::kAllProtocols) {
    INFO(config::protocol_name(protocol));
    const auto forced = driver::choose_collective(cluster, CollectiveOp::AllReduce, members, bytes,
                                                  clearfog::collectives::collective_algorithm("ring"), protocol);
    REQUIRE(forced.nccl_estimate_s.has_value());
    CHECK(*forced.nccl_estimate_s ==
          Approx(tuner.time_s(CollectiveOp::AllReduce, collectives::NcclAlgorithm::Ring, protocol, bytes)));
  }
  // Algorithms NCCL does not have, and its point-to-point operations: no estimate, not 0.
  for (const auto algorithm : {clearfog::collectives::collective_algorithm("direct"), clearfog::collectives::collective_algorithm("halving-doubling")}) {
    INFO(config::collective_algorithm_name(algorithm));
    const auto c = driver::choose_collective(cluster, CollectiveOp::AllReduce, members, bytes, algorithm);
    CHECK(c.algorithm == algorithm);
    CHECK_FALSE(c.nccl_estimate_s.has_value());
  }
  CHECK_FALSE(driver::choose_collective(cluster, CollectiveOp::SendRecv, first(2), bytes, clearfog::config::CollectiveAlgorithm::nccl())
                  .nccl_estimate_s.has_value());
}
