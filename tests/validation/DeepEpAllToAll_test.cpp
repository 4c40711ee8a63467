// Expert-parallel dispatch and combine bandwidths against DeepEP's published table
// (shared/reference/moe_alltoall.md, deepseek-ai/DeepEP docs/legacy.md: H800, one 400 Gb/s CX7 NIC
// per GPU; DeepSeek-V3 setting, 4096 tokens x hidden 7168 x top-8 of 256 experts, FP8 dispatch,
// BF16 combine) on platforms/hgx-h800-cluster.yaml, with DeepEP's traffic as DeepEP's own test
// makes and counts it (tests/test_internode.py): scores drawn at random, each token limited to
// min(nodes, 4) nodes (DeepSeek-V3's node-limited routing); a token travels once to each GPU that
// holds one of its experts and, across nodes, once to each node (hierarchical all-to-all with
// de-duplication, collectives.md). DeepEP reports NVLink bandwidth as the bytes a GPU receives
// (its own included) per second, RDMA bandwidth as the tokens x nodes it sends to (its own node
// included) per second. docs/validation.md, "MoE all-to-all".
//
// One constant is calibrated: the NVLink copy efficiency of DeepEP's kernels, on the intranode
// dispatch row (EP 8). The intranode combine and the six internode rows check it (15 %).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "config/ConfigLoader.hpp"
#include "driver/CollectiveRun.hpp"

using namespace clearfog;

namespace {

constexpr double kTokens = 4096, kHidden = 7168, kTopK = 8, kExperts = 256, kGpusPerNode = 8;
constexpr double kFp8Bytes = 1 + 4.0 / 128;  // per hidden element: e4m3 and one fp32 scale per 128
constexpr double kBf16Bytes = 2;

/// C(n, k) as a double (n up to 256, k = 8).
double choose(double n, double k) {
  double c = 1;
  for (int i = 0; i < static_cast<int>(k); ++i) c *= (n - i) / (i + 1);
  return c;
}

/// What DeepEP's test routing sends over `ranks` GPUs: the probability that a token reaches a
/// given node and a given GPU. The token picks min(nodes, 4) of the nodes (the groups with the
/// highest scores: uniformly at random), then its top-8 experts among theirs (again uniformly).
struct Routing {
  double nodes, p_node, p_gpu;
  explicit Routing(double ranks) : nodes(std::max(1.0, ranks / kGpusPerNode)) {
    const double picked = std::min(nodes, 4.0), pool = picked * kExperts / nodes;
    const double per_node = kExperts / nodes, per_gpu = kExperts / ranks;
    p_node = picked / nodes * (1 - choose(pool - per_node, kTopK) / choose(pool, kTopK));
    p_gpu = picked / nodes * (1 - choose(pool - per_gpu, kTopK) / choose(pool, kTopK));
  }
  [[nodiscard]] double ranks() const { return nodes * kGpusPerNode; }
  /// One GPU's send buffer: its tokens' copies for every GPU, its own included.
  [[nodiscard]] double buffer_B(double bytes_per_element) const {
    return kTokens * p_gpu * ranks() * kHidden * bytes_per_element;
  }
  /// Network bytes per byte the buffer holds for a remote node's GPUs.
  [[nodiscard]] double network_share() const { return p_node / (kGpusPerNode * p_gpu); }
  /// DeepEP's RDMA count: tokens x nodes they go to, the sender's own node included.
  [[nodiscard]] double rdma_B(double bytes_per_element) const {
    return kTokens * nodes * p_node * kHidden * bytes_per_element;
  }
};

struct Exchange {
  double time_s, nvlink_GBps, rdma_GBps;
};

Exchange simulate(double copy_efficiency, double ranks, double bytes_per_element) {
  const auto platform = config::load_platform(
      std::string(CLEARFOG_SOURCE_DIR) + "/platforms/hgx-h800-cluster.yaml",
      {config::parse_override(fmt::format("collectives.intra_node.copy_efficiency={}", copy_efficiency))});
  const auto cluster = topology::ClusterTopology::build(platform);
  const Routing r(ranks);
  driver::CollectiveCase k{config::CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("hierarchical"),
                           std::nullopt, config::Fidelity::Fluid, static_cast<int>(ranks),
                           r.buffer_B(bytes_per_element), {}, r.network_share()};
  if (r.nodes == 1) {
    k.algorithm = clearfog::collectives::collective_algorithm("direct");  // one node: every token goes straight to its GPUs
    k.network_share = 1;
  }
  const double t = driver::measure_collective(cluster, k).time_s;
  return {t, r.buffer_B(bytes_per_element) / t / 1e9, r.rdma_B(bytes_per_element) / t / 1e9};
}

}  // namespace

TEST_CASE("validation::DeepEP routing: de-duplicated bytes from the routing's closed form", "[validation][moe]") {
  // One node: a token reaches 8 (1 - C(224,8)/C(256,8)) = 5.30 of the 8 GPUs, not 8 copies.
  const Routing one(8);
  CHECK(8 * one.p_gpu == Approx(8 * (1 - choose(224, 8) / choose(256, 8))));
  CHECK(8 * one.p_gpu == Approx(5.30).epsilon(0.01));
  // Eight nodes, four picked: a token reaches 4 (1 - C(96,8)/C(128,8)) = 3.63 nodes.
  const Routing eight(64);
  CHECK(eight.nodes * eight.p_node == Approx(3.63).epsilon(0.01));
  CHECK(eight.network_share() < 1);
}

TEST_CASE("validation::DeepEP dispatch and combine bandwidth on H800", "[validation][simulation][moe]") {
  // Calibration: the NVLink copy efficiency that reproduces the intranode dispatch row (153 GB/s).
  // NVLink-bound, the time scales with the wire bytes, i.e. with 1 / efficiency.
  const double nccl_efficiency = 0.805;  // the platform file's NCCL fit, which the first run uses
  const double at_nccl = simulate(nccl_efficiency, 8, kFp8Bytes).nvlink_GBps;
  const double deepep_efficiency = nccl_efficiency * 153 / at_nccl;
  INFO("DeepEP's NVLink copy efficiency: " << deepep_efficiency << " (NCCL's " << nccl_efficiency << ")");
  CHECK(deepep_efficiency > 0);
  CHECK(deepep_efficiency < nccl_efficiency);  // DeepEP reports less than NCCL's copy rate would give
  CHECK(simulate(deepep_efficiency, 8, kFp8Bytes).nvlink_GBps == Approx(153).epsilon(0.01));

  // Checks: the combine inside a node, and dispatch and combine across 2, 4 and 8 nodes.
  CHECK(simulate(deepep_efficiency, 8, kBf16Bytes).nvlink_GBps == Approx(158).epsilon(0.15));
  struct Row {
    double ranks, dispatch_GBps, combine_GBps;
  };
  for (const Row& row : {Row{16, 43, 43}, Row{32, 58, 57}, Row{64, 51, 50}}) {
    const Exchange dispatch = simulate(deepep_efficiency, row.ranks, kFp8Bytes);
    const Exchange combine = simulate(deepep_efficiency, row.ranks, kBf16Bytes);
    INFO(row.ranks << " ranks: dispatch " << dispatch.rdma_GBps << " GB/s, combine " << combine.rdma_GBps);
    CHECK(dispatch.rdma_GBps == Approx(row.dispatch_GBps).epsilon(0.15));
    CHECK(combine.rdma_GBps == Approx(row.combine_GBps).epsilon(0.15));
  }
  // Beyond two nodes the NIC sets the pace: the bytes that really cross it (the token's remote
  // nodes) stay under one NIC's 48 GB/s, though DeepEP's count, which includes the sender's own
  // node, exceeds it.
  const Routing four(32);
  const Exchange ep32 = simulate(deepep_efficiency, 32, kFp8Bytes);
  const double remote_B = four.rdma_B(kFp8Bytes) * (four.nodes - 1) / four.nodes;
  CHECK(remote_B / ep32.time_s / 1e9 <= 48.0 * 1.001);
  CHECK(ep32.rdma_GBps > 48.0);
}
