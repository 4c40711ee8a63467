// Protocols of the groups of 3D runs: the closed-form ring time decides between Simple and LL, and
// the crossover falls where the alpha-beta algebra puts it.
#include <catch2/catch.hpp>

#include <string>

#include "config/ConfigLoader.hpp"
#include "driver/ProtocolChoice.hpp"

using namespace clearfog;
using config::CollectiveOp;

namespace {

topology::ClusterTopology platform(const std::string& file) {
  return topology::ClusterTopology::build(config::load_platform(std::string(CLEARFOG_SOURCE_DIR) + "/platforms/" + file));
}

}  // namespace

TEST_CASE("driver::fastest_protocol: LL below the closed-form crossover, Simple above", "[driver]") {
  // dgx-a100.yaml: 8 GPUs on NVSwitch, 300 GB/s, 2 x 1 us per route; Simple 0.772 and 14 us per
  // step, LL 0.40 and 1 us. A ring all-reduce has 2(p-1) steps of n/p; the two times are equal at
  // n* = p (o_S - o_LL) B / (1/e_LL - 1/e_S).
  const auto cluster = platform("dgx-a100.yaml");
  const std::vector<int> group = {0, 1, 2, 3, 4, 5, 6, 7};
  const double p = 8, B = 300e9, alpha = 2e-6;
  const double crossover = p * (14e-6 - 1e-6) * B / (1 / 0.40 - 1 / 0.772);
  CHECK(driver::fastest_protocol(cluster, CollectiveOp::AllReduce, group, crossover / 2).name == "low-latency");
  CHECK(driver::fastest_protocol(cluster, CollectiveOp::AllReduce, group, crossover * 2).name == "simple");
  const double n = 64e6;
  const auto simple = cluster.platform().collectives.protocols().front();
  CHECK(driver::ring_time_estimate_s(cluster, CollectiveOp::AllReduce, group, n, simple) ==
        Approx(14 * (alpha + 14e-6) + 14 * (n / p) / (0.772 * B)));
  // Reduce-scatter: half the steps, so the same crossover per step size.
  CHECK(driver::ring_time_estimate_s(cluster, CollectiveOp::ReduceScatter, group, n, simple) ==
        Approx(7 * (alpha + 14e-6) + 7 * (n / p) / (0.772 * B)));
}

TEST_CASE("driver::ring_step_bandwidth_Bps: a group gets the NICs of its members on a node", "[driver]") {
  // dgx-a100-cluster.yaml: 8 HDR NICs of 24 GB/s per node, one per GPU.
  const auto cluster = platform("dgx-a100-cluster.yaml");
  const int per_node = cluster.devices_per_node();
  // A data-parallel group of a tp = 8 run: one GPU per node, so one NIC's worth.
  CHECK(driver::ring_step_bandwidth_Bps(cluster, {3, 3 + per_node, 3 + 2 * per_node}) == Approx(24e9));
  // Two whole nodes: all 8 NICs.
  std::vector<int> two_nodes;
  for (int d = 0; d < 2 * per_node; ++d) two_nodes.push_back(d);
  CHECK(driver::ring_step_bandwidth_Bps(cluster, two_nodes) == Approx(8 * 24e9));
  // Inside a node: the NVLink route.
  CHECK(driver::ring_step_bandwidth_Bps(cluster, {0, 1, 2, 3}) == Approx(300e9));
}
