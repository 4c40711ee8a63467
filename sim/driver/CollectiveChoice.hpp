#pragma once
// Which algorithm, protocol and channels a collective over a device group runs with: `nccl` asks
// NCCL's tuner (collectives/NcclTuner.hpp) about the group as NCCL's topology detection would see
// it on this platform; an explicit algorithm keeps the algorithm and takes NCCL's protocol and
// channels for it. One function serves `clearfog collective`, every group of a training plan and
// `compare`. Model: docs/collectives.md, "The NCCL tuner".
#include <optional>
#include <vector>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/NcclTuner.hpp"
#include "config/CollectiveSpec.hpp"
#include "config/PlatformSpec.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::driver {

struct CollectivePlanChoice {
  config::CollectiveAlgorithm algorithm;  // concrete
  config::CollectiveProtocol protocol;  // with the platform's figures for the group
  int channels = 1;
  /// NCCL's own estimate (its ncclTopoGetAlgoTime) for the algorithm and protocol that run; none where
  /// NCCL has no such algorithm (direct, halving-doubling, hierarchical, a tree of a rooted
  /// operation) and for point-to-point operations.
  std::optional<double> nccl_estimate_s;
};

/// NCCL rates an NVLink at 20 GB/s of its 25 GB/s per direction (src/graph/topo.h SM70/80/90_NVLINK_BW,
/// NCCL 2.18.5) and a PCIe Gen3 x16 link at 12 GB/s of 15.75 (PCI_BW): the tuner sees the platform's
/// links scaled by these.
inline constexpr double kNcclNvlinkRating = 20.0 / 25.0;
inline constexpr double kNcclPciRating = 12.0 / 15.75;

/// The communicator `members` form, as NCCL's topology detection would describe it.
collectives::NcclSystem nccl_system(const topology::ClusterTopology& cluster, const std::vector<int>& members);

/// Whether `members` live on more than one node.
bool spans_nodes(const topology::ClusterTopology& cluster, const std::vector<int>& members);

/// Members per node when they come in equal runs of consecutive members of one node (what rings
/// across nodes and NCCL's trees need), else 0.
int ranks_per_node(const topology::ClusterTopology& cluster, const std::vector<int>& members);

/// What decides whether an algorithm can run over `members` here (collectives::GroupShape).
collectives::GroupShape group_shape(const topology::ClusterTopology& cluster, const std::vector<int>& members);

/// Whether `algorithm` can run `op` over `members` here: it is concrete, implements the operation
/// and its rule (CollectiveAlgorithmType::refusal) does not refuse the group.
bool can_run(const topology::ClusterTopology& cluster, config::CollectiveOp op, const std::vector<int>& members,
             config::CollectiveAlgorithm algorithm);

/// The platform's protocol `p` for the group; nullopt where the platform has no figures for it.
std::optional<config::CollectiveProtocol> group_protocol(const topology::ClusterTopology& cluster,
                                                         const std::vector<int>& members, config::Protocol p);

/// `requested` resolved for `op` over `members` at `bytes`: nccl, or an algorithm that cannot run
/// here, takes the tuner's choice; ring, tree and in-switch the tuner's best protocol and channels
/// for that algorithm; the others the protocol and channels NCCL's ring would use. `protocol`
/// forces a protocol (best's candidates). Never called with best.
CollectivePlanChoice choose_collective(const topology::ClusterTopology& cluster, config::CollectiveOp op,
                                       const std::vector<int>& members, double bytes,
                                       config::CollectiveAlgorithm requested,
                                       std::optional<config::Protocol> protocol = std::nullopt);

}  // namespace clearfog::driver
