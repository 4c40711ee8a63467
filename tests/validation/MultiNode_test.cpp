// Collectives across DGX A100 nodes (platforms/dgx-a100-cluster.yaml: 8 HDR NICs per node, about
// 24 GB/s usable each, rail-optimized) against what NCCL users report (shared/reference/nccl_misc.md).
#include <catch2/catch.hpp>

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
  const auto t = measure(c, config::CollectiveOp::AllReduce, config::CollectiveAlgorithm::Ring, 32, 1024.0 * 1024 * 1024);
  INFO("busbw " << t.busbw_Bps / 1e9 << " GB/s");
  CHECK(t.busbw_Bps / 1e9 <= bound_GBps * 1.001);
  CHECK(t.busbw_Bps / 1e9 == Approx(192.0).epsilon(0.10));
}

TEST_CASE("validation::multi-node all_to_all is limited to one NIC per GPU", "[validation][simulation]") {
  // Pairwise all-to-all over 2 nodes of 8: every one of the p-1 = 15 steps has some pair crossing
  // nodes, and a pair can only use the sender's NIC (nccl-tests issue #267), so each step lasts
  // (n/p) / NIC and busbw = (p-1)/p * n / t = NIC bandwidth.
  const auto c = cluster();
  const double nic_GBps = c.platform().fabric.nic.bandwidth_Bps / 1e9;
  const auto cross = measure(c, config::CollectiveOp::AllToAll, config::CollectiveAlgorithm::Direct, 16, 1024.0 * 1024 * 1024);
  CHECK(cross.busbw_Bps / 1e9 == Approx(nic_GBps).epsilon(0.02));
  // Inside one node the same all-to-all runs at NVLink speed, an order of magnitude faster.
  const auto inside = measure(c, config::CollectiveOp::AllToAll, config::CollectiveAlgorithm::Direct, 8, 1024.0 * 1024 * 1024);
  CHECK(inside.busbw_Bps > 5 * cross.busbw_Bps);
}
