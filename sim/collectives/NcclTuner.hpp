#pragma once
// NCCL's own choice of algorithm, protocol and channel count for one collective, restated in closed
// form from NCCL 2.18.5 (the version of the A100 reference sweep): the topology search
// (src/graph/search.cc ncclTopoCompute), the cost tables (src/graph/tuning.cc ncclTopoTuneModel),
// the time model (tuning.cc ncclTopoGetAlgoTime) and the selection with its channel tuning
// (src/enqueue.cc getAlgoInfo). Pure: no engine and no platform file; the driver describes the
// communicator with an NcclSystem. Equations, constants and what is simplified:
// docs/collectives.md, "The NCCL tuner".
#include <array>
#include <optional>
#include <string_view>

#include "config/CollectiveSpec.hpp"

namespace clearfog::collectives {

/// GPU generation: picks NCCL's per-architecture tables (compute capability 7.x, 8.x, 9.x).
enum class NcclArch { Volta, Ampere, Hopper };

/// NCCL's algorithms, in NCCL's order (ties go to the first, as in getAlgoInfo).
enum class NcclAlgorithm { Tree, Ring, CollNetDirect, CollNetChain, Nvls, NvlsTree };
inline constexpr int kNcclAlgorithms = 6;
inline constexpr int kNcclProtocols = 3;  // config::Protocol: LL, LL128, Simple

std::string_view nccl_algorithm_name(NcclAlgorithm a);  // "Tree", "Ring", ... as NCCL logs them

/// What NCCL's topology detection finds for one communicator.
struct NcclSystem {
  int ranks = 1;             // communicator size
  int nodes = 1;             // nodes it spans; NCCL assumes ranks / nodes GPUs on each
  NcclArch arch = NcclArch::Ampere;
  bool nvlink = true;        // GPUs of a node joined by NVLink (else PCIe): NCCL's typeIntra
  double gpu_GBps = 0;       // per GPU inside a node, as NCCL rates it (its totalBw)
  double nic_GBps = 0;       // one NIC, per direction
  int nics = 0;              // NICs the communicator's GPUs of one node use
  bool nvls = false;         // the node's NVSwitch reduces (NVLink SHARP): NVLS inside one node
  /// Protocols the caller can carry out (LL, LL128, Simple); the others are never chosen.
  std::array<bool, kNcclProtocols> protocols = {true, true, true};
};

/// One searched graph (ncclTopoGraph): channels and the bandwidth of each, GB/s.
struct NcclGraph {
  int channels = 0;
  double bw_intra_GBps = 0;
  double bw_inter_GBps = 0;
};

struct NcclChoice {
  NcclAlgorithm algorithm = NcclAlgorithm::Ring;
  config::Protocol protocol = config::Protocol::Simple;
  int channels = 1;          // channels (CTAs) the collective runs on
  double model_time_s = 0;   // NCCL's own estimate (0 for point-to-point operations)
};

class NcclTuner {
public:
  /// Searches the graphs and fills the cost tables for this communicator.
  explicit NcclTuner(const NcclSystem& system);

  /// NCCL's choice for `op` over `bytes` (nccl-tests sizes: the total for all_gather and
  /// reduce_scatter). all_to_all and sendrecv are NCCL point-to-point operations: pairwise, LL up to
  /// 16 KiB per peer (NCCL_P2P_LL_THRESHOLD), Simple above. With `only`, the fastest protocol of that
  /// algorithm (NCCL_ALGO set to one algorithm). Throws clearfog::Error when nothing can run it.
  [[nodiscard]] NcclChoice choose(config::CollectiveOp op, double bytes) const;
  [[nodiscard]] NcclChoice choose(config::CollectiveOp op, double bytes, NcclAlgorithm only) const;

  /// ncclTopoGetAlgoTime in seconds; negative when the pair is unavailable.
  [[nodiscard]] double time_s(config::CollectiveOp op, NcclAlgorithm a, config::Protocol p, double bytes) const;
  /// NCCL's own estimate of `op` run with `a` and `p`, as choose() reports it: 0 over one rank
  /// (nothing to do); none for a point-to-point operation or a pair NCCL cannot run.
  [[nodiscard]] std::optional<double> estimate_s(config::CollectiveOp op, NcclAlgorithm a, config::Protocol p,
                                                 double bytes) const;
  /// The table entries: algorithm bandwidth in GB/s (0: unavailable) and latency in us.
  [[nodiscard]] double bandwidth_GBps(config::CollectiveOp op, NcclAlgorithm a, config::Protocol p) const;
  [[nodiscard]] double latency_us(config::CollectiveOp op, NcclAlgorithm a, config::Protocol p) const;

  [[nodiscard]] const NcclGraph& ring_graph() const { return ring_; }
  [[nodiscard]] const NcclGraph& tree_graph() const { return tree_; }
  [[nodiscard]] const NcclGraph& nvls_graph() const { return nvls_; }
  /// comm->nChannels: the ring graph's channels doubled (ncclTopoPostset).
  [[nodiscard]] int channels() const { return channels_; }
  [[nodiscard]] int nvls_channels() const { return nvls_channels_; }
  [[nodiscard]] const NcclSystem& system() const { return system_; }
  /// Channels getAlgoInfo gives `a` with `p` at `bytes`: NVLS its own; ring and tree fewer while each
  /// thread would get less than its threshold of work.
  [[nodiscard]] int channels_for(NcclAlgorithm a, config::Protocol p, double bytes) const;

private:
  using Table = std::array<std::array<std::array<double, kNcclProtocols>, kNcclAlgorithms>, 5>;
  void tune();
  [[nodiscard]] NcclChoice point_to_point(config::CollectiveOp op, double bytes) const;

  NcclSystem system_;
  NcclGraph ring_, tree_, nvls_;
  int channels_ = 1;
  int nvls_channels_ = 0;
  Table bandwidth_{};  // [function][algorithm][protocol], GB/s of algorithm bandwidth
  Table latency_{};    // us
};

}  // namespace clearfog::collectives
