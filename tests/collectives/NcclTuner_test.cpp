// NCCL's tuner: its choices flip where NCCL 2.18.5's tables put the flips. Every expected value is
// derived here from NCCL's own constants (src/graph/tuning.cc, search.cc, enqueue.cc of 2.18.5,
// quoted where used), never from the tuner's output. No engine.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "collectives/NcclTuner.hpp"

using namespace clearfog;
using collectives::NcclAlgorithm;
using collectives::NcclArch;
using collectives::NcclSystem;
using collectives::NcclTuner;
using config::CollectiveOp;
using config::Protocol;

namespace {

/// 8 A100s on NVSwitch: 12 NVLinks of 20 GB/s as NCCL rates them (topo.h SM80_NVLINK_BW).
NcclSystem dgx_a100(int nodes = 1) {
  NcclSystem s;
  s.ranks = 8 * nodes;
  s.nodes = nodes;
  s.arch = NcclArch::Ampere;
  s.gpu_GBps = 12 * 20.0;
  s.nic_GBps = 24;  // HDR, usable (NVIDIA/nccl issue #412)
  s.nics = 8;
  return s;
}

/// 8 H100s on NVSwitch with NVLS: 18 NVLinks of 20 GB/s (SM90_NVLINK_BW in 2.18.5).
NcclSystem dgx_h100(int gpus = 8) {
  NcclSystem s;
  s.ranks = gpus;
  s.arch = NcclArch::Hopper;
  s.gpu_GBps = 18 * 20.0;
  s.nvls = true;
  return s;
}

/// Where lat1 + n / bw1 = lat2 + n / bw2 (lat in us, bw in GB/s, n in bytes: NCCL's units).
double crossover_B(double lat1_us, double bw1_GBps, double lat2_us, double bw2_GBps) {
  return (lat2_us - lat1_us) * 1000 / (1 / bw1_GBps - 1 / bw2_GBps);
}

}  // namespace

TEST_CASE("collectives::NcclTuner: DGX A100 graphs as NCCL's search finds them", "[collectives][nccl]") {
  const NcclTuner t(dgx_a100());
  // search.cc: the first intra speed, 40 GB/s, fits 240 / 40 = 6 rings, which fill the GPU's 240;
  // channels of >= 25 GB/s are then duplicated at half the speed; ncclTopoPostset doubles again.
  CHECK(t.ring_graph().channels == 2 * 240 / 40);
  CHECK(t.ring_graph().bw_intra_GBps == Approx(40.0 / 2));
  CHECK(t.channels() == 2 * 2 * 240 / 40);
  // Across nodes the inter speeds start at the NIC's 24 GB/s: one ring per NIC, no duplication.
  const NcclTuner four(dgx_a100(4));
  CHECK(four.ring_graph().channels == 8);
  CHECK(four.ring_graph().bw_inter_GBps == Approx(24));
  CHECK(four.channels() == 2 * 8);
}

TEST_CASE("collectives::NcclTuner: LL, then LL128, then Simple as an all-reduce grows", "[collectives][nccl]") {
  const NcclTuner t(dgx_a100());
  // tuning.cc, 8 ranks on one node: ring nsteps = 14, algbw = busBw x 8/14;
  // LL: busBw = min(llMaxBw 87.7, 240/4), lat = 6.6 + 14 x 0.6;
  // LL128: busBw = min(240 x 0.92, 12 channels x 20), lat = 14 + 14 x 1.9;
  // Simple: busBw = 240, lat = 8.4 + 14 x 3.4.
  const double ratio = 8.0 / 14;
  const double ll_bw = std::min(87.7, 240 / 4.0) * ratio, ll_lat = 6.6 + 14 * 0.6;
  const double ll128_bw = std::min(240 * 0.92, 12 * 20.0) * ratio, ll128_lat = 14 + 14 * 1.9;
  const double simple_bw = 240 * ratio, simple_lat = 8.4 + 14 * 3.4;
  CHECK(t.bandwidth_GBps(CollectiveOp::AllReduce, NcclAlgorithm::Ring, Protocol::LL) == Approx(ll_bw));
  CHECK(t.latency_us(CollectiveOp::AllReduce, NcclAlgorithm::Ring, Protocol::LL128) == Approx(ll128_lat));
  const double first = crossover_B(ll_lat, ll_bw, ll128_lat, ll128_bw);       // ~1.2 MB
  const double second = crossover_B(ll128_lat, ll128_bw, simple_lat, simple_bw);  // ~24 MB
  for (auto [bytes, protocol] : {std::pair{0.9 * first, Protocol::LL}, std::pair{1.1 * first, Protocol::LL128},
                                 std::pair{0.9 * second, Protocol::LL128}, std::pair{1.1 * second, Protocol::Simple}}) {
    INFO(bytes << " B");
    const auto c = t.choose(CollectiveOp::AllReduce, bytes);
    CHECK(c.algorithm == NcclAlgorithm::Ring);
    CHECK(c.protocol == protocol);
  }
}

TEST_CASE("collectives::NcclTuner: across 4 nodes the tree wins mid sizes, the ring large ones", "[collectives][nccl]") {
  const NcclTuner t(dgx_a100(4));
  // tuning.cc, 32 ranks on 4 nodes (index 2 of the per-node-count tables), both graphs 8 x 24 GB/s:
  // tree LL128: busBw = min(min(192 x .92, 8 x 17.8) x 120/128, 8 x 20), algbw = busBw / 2,
  //   lat = 14 + 2 (7 x 1.25 + log2(4) x 8.5);
  // ring LL128: busBw = min(192 x .92, 8 x 20), algbw = busBw x 32/62,
  //   lat = 14 + (62 - 8) x max(1.9, 1 us net overhead) + 8 x 4.0.
  const double tree_bw = std::min(std::min(192 * .92, 8 * 17.8) * 120 / 128, 8 * 20.0) / 2;
  const double tree_lat = 14 + 2 * (7 * 1.25 + 2 * 8.5);
  const double ring_bw = std::min(192 * .92, 8 * 20.0) * 32 / 62;
  const double ring_lat = 14 + 54 * 1.9 + 8 * 4.0;
  // Between 2^24 and 2^25 B the tree's LL128 bandwidth takes the correction factor 0.9.
  const double flip = crossover_B(tree_lat, tree_bw * 0.9, ring_lat, ring_bw);
  REQUIRE(flip > std::pow(2, 24));
  REQUIRE(flip < std::pow(2, 25));
  const auto below = t.choose(CollectiveOp::AllReduce, 0.95 * flip);
  CHECK(below.algorithm == NcclAlgorithm::Tree);
  CHECK(below.protocol == Protocol::LL128);
  const auto above = t.choose(CollectiveOp::AllReduce, 1.05 * flip);
  CHECK(above.algorithm == NcclAlgorithm::Ring);
  CHECK(above.protocol == Protocol::LL128);
  // Small: tree LL's log-depth latency, 6.8 + 2 (7 x 0.6 + 2 x 5.0), against the ring's 62 steps.
  CHECK(t.latency_us(CollectiveOp::AllReduce, NcclAlgorithm::Tree, Protocol::LL) == Approx(6.8 + 2 * (7 * 0.6 + 2 * 5.0)));
  CHECK(t.choose(CollectiveOp::AllReduce, 1024).algorithm == NcclAlgorithm::Tree);
  // Huge: only the ring's bandwidth matters (the tree is capped at 8 x 17.8 GB/s).
  CHECK(t.choose(CollectiveOp::AllReduce, 8.0 * (1 << 30)).algorithm == NcclAlgorithm::Ring);
}

TEST_CASE("collectives::NcclTuner: NVLS takes over from ring LL on 8 H100s, not on 4", "[collectives][nccl]") {
  const NcclTuner eight(dgx_h100(8));
  // NVLS graph: one channel per GPU, (8 + 1) x speed <= 360 -> 40 GB/s (search.cc, sm90 speeds);
  // algbw = 8 x 40 x 5/6, lat = 23 us. Ring LL: min(87.7, 360/4) x 8/14, lat 6.6 + 14 x 0.6.
  const double nvls_bw = 8 * 40 * 5.0 / 6, nvls_lat = 23;
  const double ll_bw = std::min(87.7, 360 / 4.0) * 8 / 14, ll_lat = 6.6 + 14 * 0.6;
  CHECK(eight.bandwidth_GBps(CollectiveOp::AllReduce, NcclAlgorithm::Nvls, Protocol::Simple) == Approx(nvls_bw));
  const double flip = crossover_B(ll_lat, ll_bw, nvls_lat, nvls_bw);
  CHECK(eight.choose(CollectiveOp::AllReduce, 0.9 * flip).algorithm == NcclAlgorithm::Ring);
  const auto nvls = eight.choose(CollectiveOp::AllReduce, 1.1 * flip);
  CHECK(nvls.algorithm == NcclAlgorithm::Nvls);
  CHECK(nvls.channels == 16);  // NCCL_NVLS_NCHANNELS (transport/nvls.cc)
  // 4 GPUs: NVLS at 4 x 60 x 5/6 = 200 GB/s, the ring's Simple 12 x 30 x 4/6 = 240: ring for large sizes.
  const NcclTuner four(dgx_h100(4));
  CHECK(four.bandwidth_GBps(CollectiveOp::AllReduce, NcclAlgorithm::Nvls, Protocol::Simple) == Approx(4 * 60 * 5.0 / 6));
  CHECK(four.choose(CollectiveOp::AllReduce, 4.0 * (1 << 30)).algorithm == NcclAlgorithm::Ring);
  // All-gather has no NVLS in 2.18.5: ring.
  CHECK(eight.choose(CollectiveOp::AllGather, 1 << 30).algorithm == NcclAlgorithm::Ring);
}

TEST_CASE("collectives::NcclTuner: NVLSTree across 2 H100 nodes, the ring across 4", "[collectives][nccl]") {
  // Rail NDR NICs of 48 GB/s. Ring graph: 8 channels at 45 GB/s (the sm90 inter speeds: 48 fits 7
  // channels in 360, 45 fits 8 = 360). NVLS heads balance over the 8 NICs at the fastest sm90
  // inter speed with (8 + 1) x s <= 360 and s <= 48: 40 GB/s. Large buffers: bandwidth alone.
  for (int nodes : {2, 4}) {
    NcclSystem s = dgx_h100(8 * nodes);
    s.nodes = nodes;
    s.nic_GBps = 48;
    s.nics = 8;
    const NcclTuner t(s);
    const double ring = 8 * 45.0 * (8.0 * nodes) / (2 * (8.0 * nodes - 1));
    const double nvls_tree = 8 * 40.0 * .70 * nodes / (2.0 * (nodes - 1));
    INFO(nodes << " nodes: ring " << ring << " GB/s, NVLSTree " << nvls_tree);
    CHECK(t.bandwidth_GBps(CollectiveOp::AllReduce, NcclAlgorithm::Ring, Protocol::Simple) == Approx(ring));
    CHECK(t.bandwidth_GBps(CollectiveOp::AllReduce, NcclAlgorithm::NvlsTree, Protocol::Simple) == Approx(nvls_tree));
    CHECK(t.latency_us(CollectiveOp::AllReduce, NcclAlgorithm::NvlsTree, Protocol::Simple) ==
          Approx(23 + 2 * (nodes - 1) * 19.0));
    const auto big = t.choose(CollectiveOp::AllReduce, 16.0 * (1 << 30));
    CHECK(big.algorithm == (nvls_tree > ring ? NcclAlgorithm::NvlsTree : NcclAlgorithm::Ring));
    // No NVLS across nodes without CollNet.
    CHECK(t.bandwidth_GBps(CollectiveOp::AllReduce, NcclAlgorithm::Nvls, Protocol::Simple) == 0);
  }
}

TEST_CASE("collectives::NcclTuner: small buffers run on fewer channels", "[collectives][nccl]") {
  const NcclTuner t(dgx_a100());
  // enqueue.cc getAlgoInfo: channels drop while bytes < channels x threads x threshold; ring LL:
  // 512 threads, threshold 8 x 8 ranks.
  const double per_channel = 512.0 * 8 * 8;
  CHECK(t.choose(CollectiveOp::AllReduce, 4 * per_channel).channels == 4);
  CHECK(t.choose(CollectiveOp::AllReduce, 24 * per_channel).channels == 24);
  CHECK(t.choose(CollectiveOp::AllReduce, 1024).channels == 1);
}

TEST_CASE("collectives::NcclTuner: point-to-point uses LL up to 16 KiB per peer", "[collectives][nccl]") {
  const NcclTuner t(dgx_a100());
  // enqueue.cc: NCCL_P2P_LL_THRESHOLD = 16384 bytes per send.
  CHECK(t.choose(CollectiveOp::AllToAll, 8 * 16384.0).protocol == Protocol::LL);
  CHECK(t.choose(CollectiveOp::AllToAll, 8 * 16384.0 + 8).protocol == Protocol::Simple);
  CHECK(t.choose(CollectiveOp::SendRecv, 16384).protocol == Protocol::LL);
}

TEST_CASE("collectives::NcclTuner: protocols the caller cannot run are never chosen", "[collectives][nccl]") {
  NcclSystem s = dgx_a100();
  s.protocols = {false, false, true};
  const NcclTuner t(s);
  for (double bytes : {1024.0, 1e6, 1e9}) CHECK(t.choose(CollectiveOp::AllReduce, bytes).protocol == Protocol::Simple);
  CHECK_THROWS(NcclTuner(NcclSystem{.ranks = 16, .nodes = 2}));  // two nodes without NICs
}
