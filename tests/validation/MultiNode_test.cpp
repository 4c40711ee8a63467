// Collectives across DGX A100 nodes (platforms/dgx-a100-cluster.yaml: 8 HDR NICs per node, about
// 24 GB/s usable each, rail-optimized) against what NCCL users report (shared/reference/nccl_misc.md).
#include <catch2/catch.hpp>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "config/ConfigLoader.hpp"
#include "driver/CollectiveRun.hpp"

using namespace clearfog;

namespace {

topology::ClusterTopology cluster() {
  return topology::ClusterTopology::build(
      config::load_platform(std::string(CLEARFOG_SOURCE_DIR) + "/platforms/dgx-a100-cluster.yaml"));
}

driver::CollectiveTiming measure(const topology::ClusterTopology& c, config::CollectiveOp op,
                                 config::CollectiveAlgorithm algo, int ranks, double bytes) {
  return driver::measure_collective(c, {op, algo, config::Protocol::Simple, config::Fidelity::Step, ranks, bytes, {}});
}

}  // namespace

TEST_CASE("validation::multi-node all_reduce busbw near NCCL's 192 GB/s on DGX A100", "[validation][simulation]") {
  // NCCL runs one ring per NIC: each ring leaves a node through its own NIC, so a node moves
  // 8 x 24 GB/s and busbw approaches 8 NICs x 24 GB/s = 192 GB/s (NVIDIA/nccl issue #812).
  const auto c = cluster();
  const double nic_Bps = c.platform().fabric.nic.bandwidth_Bps;
  const double bound_GBps = c.platform().fabric.nic_count * nic_Bps / 1e9;
  const auto t = measure(c, config::CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), 32, 1024.0 * 1024 * 1024);
  INFO("busbw " << t.busbw_Bps / 1e9 << " GB/s");
  CHECK(t.busbw_Bps / 1e9 <= bound_GBps * 1.001);
  CHECK(t.busbw_Bps / 1e9 == Approx(192.0).epsilon(0.10));
}

TEST_CASE("validation::multi-node all_to_all tends to N/(N-1) NICs per GPU", "[validation][simulation]") {
  // NCCL posts all of an all-to-all's sends at once; what a GPU sends off its node, (N-1)/N of
  // its buffer over N nodes, goes through its own NIC, which it cannot share with the node's other
  // NICs (nccl-tests issues #130, #267, shared/reference/moe_alltoall.md). busbw = (p-1)/p · n / t
  // with t = n (N-1)/N / NIC: N/(N-1) · NIC · (p-1)/p.
  const auto c = cluster();
  const double nic_GBps = c.platform().fabric.nic.bandwidth_Bps / 1e9;
  const double p = 16, nodes = 2;
  const auto cross = measure(c, config::CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("direct"), 16, 1024.0 * 1024 * 1024);
  CHECK(cross.busbw_Bps / 1e9 == Approx(nodes / (nodes - 1) * nic_GBps * (p - 1) / p).epsilon(0.02));
  // Inside one node the same all-to-all runs at NVLink speed, an order of magnitude faster.
  const auto inside = measure(c, config::CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("direct"), 8, 1024.0 * 1024 * 1024);
  CHECK(inside.busbw_Bps > 5 * cross.busbw_Bps);
}
