// NCCL 2.18.5's tuner in closed form. Every constant below is NCCL's, cited by file; the functions
// follow NCCL's own, restated for the regular systems clearfog builds (a switch or direct links
// inside a node, rail NICs across nodes). docs/collectives.md, "The NCCL tuner", has the equations.
#include "collectives/NcclTuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/Errors.hpp"

namespace clearfog::collectives {
namespace {

using config::CollectiveOp;
using config::Protocol;

constexpr int LL = 0, LL128 = 1, SIMPLE = 2;
constexpr int TREE = 0, RING = 1, COLLNET_DIRECT = 2, COLLNET_CHAIN = 3, NVLS = 4, NVLS_TREE = 5;
constexpr int HW_NVLINK = 0, HW_PCI = 1, HW_NET = 2;

// src/include/device.h (2.18.5): MAXCHANNELS; src/init.cc: ringGraph.maxChannels = MAXCHANNELS/2.
constexpr int kMaxChannels = 32;
constexpr int kMaxRingChannels = kMaxChannels / 2;
// src/transport/nvls.cc: NCCL_NVLS_NCHANNELS default.
constexpr int kNvlsChannels = 16;

// src/graph/search.cc: the bandwidths (GB/s per channel) the search tries, highest first.
const std::vector<double> kSpeedIntra = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
const std::vector<double> kSpeedInter = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                         7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
const std::vector<double> kSpeedIntraSm90 = {60.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0};
const std::vector<double> kSpeedInterSm90 = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 20.0, 17.5,
                                             15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

// src/graph/tuning.cc: base latency (us) per algorithm and protocol (LL, LL128, Simple).
constexpr double kBaseLat[kNcclAlgorithms][kNcclProtocols] = {
    {6.8, 14.0, 0}, {6.6, 14.0, 8.4},  // Tree, Ring
    {6.8, 14.0, 0}, {6.8, 14.0, 0},    // CollNet Direct, Chain
    {0, 0, 23.0},   {0, 0, 23.0}};     // NVLS, NVLS Tree
// src/graph/tuning.cc: latency (us) per step on NVLink, PCI and the network.
constexpr double kHwLat[3][kNcclAlgorithms][kNcclProtocols] = {
    {{.6, 1.25, 4}, {.6, 1.9, 3.4}, {0, 0, 8.0}, {0, 0, 4.75}, {0, 0, 0}, {0, 0, 0}},
    {{1.0, 1.9, 6}, {1.0, 2.5, 5.7}, {0, 0, 8.0}, {0, 0, 8.0}, {0, 0, 0}, {0, 0, 0}},
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 10.7}, {0, 0, 14}, {0, 0, 18}, {0, 0, 19}}};
// src/graph/tuning.cc: [arch or CPU][1 node, 2 nodes, more], GB/s.
constexpr double kLlMaxBw[3][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}};
constexpr double kPerChMaxRingLL128Bw[3][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}};
constexpr double kPerChMaxTreeLL128Bw[3][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}};
constexpr double kPerChMaxTreeBw[3][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}};
// src/graph/tuning.cc: per-size correction of tree bandwidth, powers of two from 64 B.
constexpr double kTreeCorrection[kNcclProtocols][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
// src/graph/tuning.cc getNetOverhead: x86 Intel host (AMD: 2 us), tripled for Simple.
constexpr double kNetOverhead_us = 1.0;
// src/include/comm.h: per-thread work before more channels are used (ring LL: times the ranks).
constexpr double kThreadThreshold[kNcclProtocols] = {8, 8, 64};
// src/include/devcomm.h: threads per channel.
constexpr int kMaxThreads[kNcclProtocols] = {512, 640, 512};  // LL, LL128, Simple
constexpr int kNcclMaxThreads = 640;                           // NVLS
constexpr int kWarp = 32;
// src/graph/topo.h: PCI_BW, a PCIe Gen3 x16 link as NCCL rates it (ring Simple uses 256 threads below).
constexpr double kPciBw_GBps = 12.0;
// src/enqueue.cc: NCCL_P2P_LL_THRESHOLD default.
constexpr double kP2pLLThreshold_B = 16384;

int function_index(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::Broadcast: return 0;
    case CollectiveOp::Reduce: return 1;
    case CollectiveOp::AllGather: return 2;
    case CollectiveOp::ReduceScatter: return 3;
    case CollectiveOp::AllReduce: return 4;
    case CollectiveOp::AllToAll:
    case CollectiveOp::SendRecv: break;
  }
  return -1;
}

int arch_index(NcclArch a) { return static_cast<int>(a); }

/// src/include/utils.h log2i: floor(log2 n), 0 for n < 2.
int log2i(long long n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

int next_pow2(int v) {
  int p = 1;
  while (p < v) p <<= 1;
  return p;
}

/// Channels of bandwidth `speed` a ring can route: each takes `speed` of every GPU's intra-node
/// bandwidth and, across nodes, of one NIC in and out.
int ring_channels_at(const NcclSystem& s, double speed) {
  const double eps = 1e-9;
  int n = static_cast<int>(std::floor(s.gpu_GBps / speed + eps));
  if (s.nodes > 1) n = std::min(n, s.nics * static_cast<int>(std::floor(s.nic_GBps / speed + eps)));
  return std::min(n, kMaxRingChannels);
}

/// ncclTopoCompute for the ring pattern: pass 1 starts at the fastest speed the GPU's path allows,
/// keeps the graph with the most channels x bandwidth, stops once that reaches the GPU's total
/// bandwidth or the next speed is below half of the best; then channels of >= 25 GB/s are
/// duplicated at half the bandwidth (not on sm90+ below 50 GB/s with more than 4 channels).
NcclGraph search_ring(const NcclSystem& s) {
  const bool net = s.nodes > 1;
  const auto& speeds = s.arch == NcclArch::Hopper ? (net ? kSpeedInterSm90 : kSpeedIntraSm90)
                                                  : (net ? kSpeedInter : kSpeedIntra);
  const double max_bw = net ? std::min(s.nic_GBps, s.gpu_GBps) : s.gpu_GBps;
  const double total_bw = s.gpu_GBps;
  std::size_t i = 0;
  while (i + 1 < speeds.size() && (speeds[i] > max_bw || speeds[i] > total_bw)) ++i;
  NcclGraph best;
  for (;; ++i) {
    const int n = ring_channels_at(s, speeds[i]);
    if (n >= 1 && n * speeds[i] > best.channels * best.bw_intra_GBps) best = {n, speeds[i], speeds[i]};
    if (best.channels * best.bw_inter_GBps >= total_bw || best.channels == kMaxRingChannels) break;
    if (i + 1 >= speeds.size() || (best.channels > 0 && speeds[i + 1] / best.bw_inter_GBps <= .49)) break;
  }
  if (best.channels == 0) return {1, 0.1, 0.1};  // NCCL's fallback: one channel at 0.1 GB/s
  if (best.bw_intra_GBps < 25.0) return best;
  if (s.arch == NcclArch::Hopper && best.bw_intra_GBps < 50.0 && best.channels > 4) return best;
  const int dup = std::min(best.channels * 2, kMaxRingChannels);
  const int divide = (dup + best.channels - 1) / best.channels;
  return {dup, best.bw_intra_GBps / divide, best.bw_inter_GBps / divide};
}

/// The tree graph: NCCL forces the ring's channel count (init.cc: treeGraph.min/maxChannels =
/// ringGraph.nChannels) and starts at the fastest speed those channels fit in the GPU's bandwidth,
/// scaled by m/(m-1) for non-ring patterns; across nodes the intra-node speed is then raised while
/// it stays below twice the inter-node one (search.cc, pass 2).
NcclGraph search_tree(const NcclSystem& s, const NcclGraph& ring) {
  const bool net = s.nodes > 1;
  const int m = std::max(1, s.ranks / s.nodes);
  const auto& speeds = s.arch == NcclArch::Hopper ? (net ? kSpeedInterSm90 : kSpeedIntraSm90)
                                                  : (net ? kSpeedInter : kSpeedIntra);
  const double total_bw = m > 1 ? s.gpu_GBps * m / (m - 1) : s.gpu_GBps;
  const double max_bw = net ? std::min(s.nic_GBps, s.gpu_GBps) : s.gpu_GBps;
  const int c = ring.channels;
  std::size_t i = 0;
  while (i + 1 < speeds.size() && (speeds[i] > max_bw || speeds[i] * c > total_bw)) ++i;
  NcclGraph tree{c, speeds[i], speeds[i]};
  if (net)
    while (i > 0 && tree.bw_intra_GBps < 2 * tree.bw_inter_GBps && speeds[i - 1] * c <= total_bw)
      tree.bw_intra_GBps = speeds[--i];
  return tree;
}

/// The NVLS graph: one channel per head, each pulling `speed` through every GPU's port and twice
/// through its head's, so (m+1)·speed fits in the GPU's bandwidth. Inside one node every GPU is a
/// head (search.cc forces min = max = GPUs); across nodes the heads balance over the NICs, whose
/// speed bounds the channel's (the sm90 inter speeds).
NcclGraph search_nvls(const NcclSystem& s) {
  const int m = s.ranks / s.nodes;
  const bool net = s.nodes > 1;
  for (double speed : net ? kSpeedInterSm90 : kSpeedIntraSm90)
    if ((m + 1) * speed <= s.gpu_GBps * (1 + 1e-9) && (!net || speed <= s.nic_GBps))
      return {net ? s.nics : m, speed, speed};
  return {};
}

/// Ring steps of `op` over R ranks (nsteps) and, of them, the steps that cross nodes (tuning.cc).
int ring_steps(CollectiveOp op, int ranks) {
  if (op == CollectiveOp::AllReduce) return 2 * (ranks - 1);
  if (op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllGather) return ranks - 1;
  return ranks;
}

int ring_inter_steps(CollectiveOp op, int nodes) {
  if (op == CollectiveOp::AllReduce) return nodes > 1 ? 2 * nodes : 0;
  if (op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllGather) return nodes - 1;
  return nodes;
}

/// ncclTopoTuneModel's bandwidth of algorithm a with protocol p: the graph's busBw, refined per
/// algorithm and protocol, converted to algorithm bandwidth (GB/s).
double algorithm_bandwidth(const NcclSystem& s, const NcclGraph& g, CollectiveOp op, int a, int p) {
  const int arch = arch_index(s.arch);
  const int index2 = s.nodes <= 2 ? s.nodes - 1 : 2;
  const int index1 = s.nodes == 1 ? arch : 0;  // across nodes NCCL looks at the CPU: Intel assumed
  const double ll_max_bw = kLlMaxBw[index1][index2];
  const double ppn = static_cast<double>(s.ranks) / s.nodes;
  double bus = g.channels * (s.nodes <= 2 ? g.bw_intra_GBps : g.bw_inter_GBps);
  if (a == RING && p == LL)
    bus = std::min(ll_max_bw, bus * ((s.nodes > 1 || op == CollectiveOp::AllReduce || op == CollectiveOp::Reduce)
                                         ? 1.0 / 4.0
                                         : 1.0 / 3.0));
  if (a == RING && p == LL128) bus = std::min(bus * (ppn < 2 ? 0.7 : 0.92), g.channels * kPerChMaxRingLL128Bw[arch][index2]);
  if (a == TREE) bus = std::min(bus * .92, g.channels * kPerChMaxTreeBw[arch][index2]);
  if (a == TREE && p == LL) bus = std::min(bus / 3.8, ll_max_bw);
  if (a == TREE && p == LL128)
    bus = std::min(bus * (s.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), g.channels * kPerChMaxTreeLL128Bw[arch][index2]);
  const double ratio = a == RING        ? static_cast<double>(s.ranks) / ring_steps(op, s.ranks)
                       : a == NVLS      ? 5.0 / 6.0
                       : a == NVLS_TREE ? .70 * s.nodes / (2.0 * (s.nodes - 1))
                                        : .5;
  return bus * ratio;
}

/// ncclTopoTuneModel's latency of algorithm a with protocol p, us: base plus the steps' hardware
/// latencies (the graphs' latencyInter is 0 without a network plugin).
double algorithm_latency(const NcclSystem& s, CollectiveOp op, int a, int p) {
  const int intra_hw = s.nvlink ? HW_NVLINK : HW_PCI;
  const int hw = s.nodes == 1 ? intra_hw : HW_NET;
  double lat = kBaseLat[a][p];
  double intra_lat = kHwLat[intra_hw][a][p];
  const double inter_lat = kHwLat[HW_NET][a][p];
  if (a == RING) {
    const int nsteps = ring_steps(op, s.ranks);
    if (op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce) {
      // Rail rings enter each node through a different GPU: not the same channels across nodes.
      if (s.nodes == 1) return lat + kHwLat[hw][a][p];
      return lat + nsteps * (p == SIMPLE ? kHwLat[hw][TREE][p] : kHwLat[hw][a][p]);
    }
    const double net_overhead = s.nodes > 1 ? kNetOverhead_us * (p == SIMPLE ? 3 : 1) : 0;
    intra_lat = std::max(intra_lat, net_overhead);
    const int inter_steps = ring_inter_steps(op, s.nodes);
    return lat + (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
  }
  if (a == TREE) return lat + 2 * ((s.ranks / s.nodes - 1) * intra_lat + log2i(s.nodes) * inter_lat);
  if (a == NVLS) return lat + (s.nodes > 1 ? inter_lat : 0);
  if (a == NVLS_TREE) return lat + 2 * (s.nodes - 1) * inter_lat;
  return lat;
}

}  // namespace

std::string_view nccl_algorithm_name(NcclAlgorithm a) {
  switch (a) {
    case NcclAlgorithm::Tree: return "Tree";
    case NcclAlgorithm::Ring: return "Ring";
    case NcclAlgorithm::CollNetDirect: return "CollNetDirect";
    case NcclAlgorithm::CollNetChain: return "CollNetChain";
    case NcclAlgorithm::Nvls: return "NVLS";
    case NcclAlgorithm::NvlsTree: return "NVLSTree";
  }
  return "?";
}

NcclTuner::NcclTuner(const NcclSystem& system) : system_(system) {
  if (system.ranks < 1 || system.nodes < 1 || system.ranks < system.nodes)
    throw Error(fmt::format("NCCL tuner: {} ranks on {} nodes", system.ranks, system.nodes));
  if (system.ranks > 1 && !(system.gpu_GBps > 0))
    throw Error(fmt::format("NCCL tuner: the GPU bandwidth must be > 0, got {} GB/s", system.gpu_GBps));
  if (system.nodes > 1 && (system.nics < 1 || !(system.nic_GBps > 0)))
    throw Error(fmt::format("NCCL tuner: {} nodes need NICs, got {} of {} GB/s", system.nodes, system.nics,
                            system.nic_GBps));
  if (system.ranks == 1) return;
  ring_ = search_ring(system);
  tree_ = search_tree(system, ring_);
  // init.cc: comm->nChannels = min(tree, ring channels); connect.cc ncclTopoPostset doubles them,
  // and doubles again on sm90 across nodes when the ring's channels are faster than 45 GB/s.
  channels_ = std::min(kMaxChannels, 2 * std::min(ring_.channels, tree_.channels));
  if (system.arch == NcclArch::Hopper && system.nodes > 1 && ring_.bw_intra_GBps > 45.0 && 2 * channels_ <= kMaxChannels)
    channels_ *= 2;
  // NVLS needs Hopper's NVSwitch in NCCL; the platform's node.in_switch_reduction says it is there.
  // One node: NVLS; several: NVLSTree (NVLS across nodes needs CollNet, init.cc).
  if (system.nvls && system.ranks / system.nodes >= 2) {
    nvls_ = search_nvls(system);
    nvls_channels_ = nvls_.channels > 0 ? kNvlsChannels : 0;
  }
  tune();
}

void NcclTuner::tune() {
  const NcclGraph* graphs[kNcclAlgorithms] = {&tree_, &ring_, nullptr, nullptr, system_.nodes == 1 ? &nvls_ : nullptr,
                                              system_.nodes > 1 ? &nvls_ : nullptr};
  for (CollectiveOp op : config::kAllCollectiveOps) {
    const int f = function_index(op);
    if (f < 0) continue;
    for (int a = 0; a < kNcclAlgorithms; ++a) {
      if (op != CollectiveOp::AllReduce && a != RING) continue;
      const NcclGraph* g = graphs[a];
      if (g == nullptr || g->channels == 0) continue;  // CollNet: not simulated
      for (int p = 0; p < kNcclProtocols; ++p) {
        if ((a == NVLS || a == NVLS_TREE) && p != SIMPLE) continue;
        bandwidth_[f][a][p] = algorithm_bandwidth(system_, *g, op, a, p);
        latency_[f][a][p] = algorithm_latency(system_, op, a, p);
      }
    }
  }
  // Protocols: LL128 only on NVLink within a node and GPUDirect NICs across (tuning.cc enables it
  // on Volta, Ampere and Hopper); and only those the caller can carry out.
  for (auto& function : bandwidth_)
    for (auto& algorithm : function)
      for (int p = 0; p < kNcclProtocols; ++p)
        if (!system_.protocols[p] || (p == LL128 && !system_.nvlink)) algorithm[p] = 0;
}

double NcclTuner::bandwidth_GBps(CollectiveOp op, NcclAlgorithm a, Protocol p) const {
  const int f = function_index(op);
  return f < 0 ? 0 : bandwidth_[f][static_cast<int>(a)][static_cast<int>(p)];
}

double NcclTuner::latency_us(CollectiveOp op, NcclAlgorithm a, Protocol p) const {
  const int f = function_index(op);
  return f < 0 ? 0 : latency_[f][static_cast<int>(a)][static_cast<int>(p)];
}

double NcclTuner::time_s(CollectiveOp op, NcclAlgorithm a, Protocol p, double bytes) const {
  double bw = bandwidth_GBps(op, a, p);
  double lat = latency_us(op, a, p);
  if (!(bw > 0)) return -1;
  const int log_size = log2i(static_cast<long long>(bytes) >> 6);
  if (a == NcclAlgorithm::Tree && log_size < 23) bw *= kTreeCorrection[static_cast<int>(p)][log_size];
  // Plateau effect of ring (tuning.cc), once each channel gets 64 bytes per rank.
  if (a == NcclAlgorithm::Ring && p == Protocol::Simple && system_.nodes > 1 && op == CollectiveOp::AllReduce &&
      bytes / (static_cast<double>(channels_) * system_.ranks) >= 64)
    lat *= system_.arch == NcclArch::Volta ? 1.9 : 1.4;
  return (lat + bytes / (1000 * bw)) * 1e-6;
}

std::optional<double> NcclTuner::estimate_s(CollectiveOp op, NcclAlgorithm a, Protocol p, double bytes) const {
  if (function_index(op) < 0) return std::nullopt;
  if (system_.ranks == 1) return 0.0;
  const double t = time_s(op, a, p, bytes);
  return t >= 0 ? std::optional<double>(t) : std::nullopt;
}

int NcclTuner::channels_for(NcclAlgorithm a, Protocol p, double bytes) const {
  if (a == NcclAlgorithm::Nvls || a == NcclAlgorithm::NvlsTree) return nvls_channels_;
  // enqueue.cc getAlgoInfo: fewer channels, then fewer threads, while each thread would get less
  // than its threshold of work.
  const int pi = static_cast<int>(p);
  int nc = channels_;
  int nt = kMaxThreads[pi];
  if (a == NcclAlgorithm::Ring && p == Protocol::Simple && ring_.bw_intra_GBps * ring_.channels <= kPciBw_GBps) nt = 256;
  double threshold = kThreadThreshold[pi];
  if (a == NcclAlgorithm::Ring && p == Protocol::LL) threshold *= system_.ranks;
  while (bytes < nc * static_cast<double>(nt) * threshold) {
    if (nc >= 2) --nc;
    else if (nt % 128 == 0) nt /= 2;
    else break;
  }
  return nc;
}

NcclChoice NcclTuner::point_to_point(CollectiveOp op, double bytes) const {
  // paths.cc ncclTopoComputeP2pChannels: p2p channels = comm channels rounded up to a power of
  // two; enqueue.cc: inside a node each peer gets channels until peers x channels reach 4x them.
  const int p2p = next_pow2(std::max(1, channels_));
  int per_peer = p2p;
  if (system_.nodes == 1)
    while (per_peer * system_.ranks > p2p * 4 && per_peer > 1) per_peer /= 2;
  const double per_peer_B = op == CollectiveOp::AllToAll ? bytes / std::max(1, system_.ranks) : bytes;
  NcclChoice c;
  c.algorithm = NcclAlgorithm::Ring;  // unused: the driver plans point-to-point pairwise
  c.protocol = per_peer_B <= kP2pLLThreshold_B && system_.protocols[LL] ? Protocol::LL : Protocol::Simple;
  c.channels = per_peer;
  return c;
}

NcclChoice NcclTuner::choose(CollectiveOp op, double bytes) const {
  if (function_index(op) < 0) return point_to_point(op, bytes);
  if (system_.ranks == 1) return {NcclAlgorithm::Ring, Protocol::Simple, 1, 0};
  NcclChoice best;
  double best_s = std::numeric_limits<double>::infinity();
  for (int a = 0; a < kNcclAlgorithms; ++a)
    for (Protocol p : config::kAllProtocols) {
      const double t = time_s(op, static_cast<NcclAlgorithm>(a), p, bytes);
      if (t >= 0 && t < best_s) {
        best_s = t;
        best.algorithm = static_cast<NcclAlgorithm>(a);
        best.protocol = p;
      }
    }
  if (!std::isfinite(best_s))
    throw Error(fmt::format("NCCL tuner: no algorithm and protocol can run {}", config::collective_op_name(op)));
  best.model_time_s = best_s;
  best.channels = channels_for(best.algorithm, best.protocol, bytes);
  return best;
}

NcclChoice NcclTuner::choose(CollectiveOp op, double bytes, NcclAlgorithm only) const {
  if (function_index(op) < 0) return point_to_point(op, bytes);
  if (system_.ranks == 1) return {only, Protocol::Simple, 1, 0};
  NcclChoice best{only, Protocol::Simple, 1, std::numeric_limits<double>::infinity()};
  for (Protocol p : config::kAllProtocols) {
    const double t = time_s(op, only, p, bytes);
    if (t >= 0 && t < best.model_time_s) {
      best.protocol = p;
      best.model_time_s = t;
    }
  }
  if (!std::isfinite(best.model_time_s))
    throw Error(fmt::format("NCCL tuner: {} cannot run {} here", nccl_algorithm_name(only),
                            config::collective_op_name(op)));
  best.channels = channels_for(only, best.protocol, bytes);
  return best;
}

}  // namespace clearfog::collectives
