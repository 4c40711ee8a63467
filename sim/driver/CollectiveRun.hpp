#pragma once
// One collective on its own, as nccl-tests runs it: planned over the first `ranks` devices of a
// platform (in the platform's ring order), replayed in a child process, measured as time, algbw
// and busbw with nccl-tests' definitions (shared/reference/nccl_misc.md).
#include <cstdint>
#include <vector>

#include "collectives/Collective.hpp"
#include "config/CollectiveSpec.hpp"
#include "config/PlatformSpec.hpp"
#include "program/Program.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::driver {

struct CollectiveCase {
  config::CollectiveOp op = config::CollectiveOp::AllReduce;
  config::CollectiveAlgorithm algorithm = config::CollectiveAlgorithm::Ring;  // resolved, never Auto
  config::CollectiveProtocol protocol;  // one of the platform's protocols
  config::Fidelity fidelity = config::Fidelity::Step;
  int ranks = 0;      // the first `ranks` devices take part
  double bytes = 0;   // nccl-tests size convention (see CollectiveRequest::bytes)
};

struct CollectiveTiming {
  double time_s = 0;
  double algbw_Bps = 0;  // bytes / time
  double busbw_Bps = 0;  // algbw x bus_bandwidth_factor
  std::uint64_t messages = 0;
};

/// nccl-tests' factor from algbw to busbw: 2(n-1)/n for all_reduce, (n-1)/n for reduce_scatter,
/// all_gather and all_to_all, 1 for broadcast, reduce and sendrecv.
double bus_bandwidth_factor(config::CollectiveOp op, int ranks);

/// The devices 0 … ranks-1, in the order the platform's ring visits them.
std::vector<int> collective_members(const topology::ClusterTopology& cluster, int ranks);

/// Latency of one ring step: the slowest route between consecutive members (across nodes: both
/// NICs and a fabric link up and down).
double step_latency_s(const topology::ClusterTopology& cluster, const std::vector<int>& members);

/// Whether `members` live on more than one node.
bool spans_nodes(const topology::ClusterTopology& cluster, const std::vector<int>& members);

/// `protocol` as it runs among `members`: the platform's intra-node calibration replaces the
/// bandwidth protocol's figures for a group inside one node.
config::CollectiveProtocol calibrated_protocol(const topology::ClusterTopology& cluster,
                                               const config::CollectiveProtocol& protocol,
                                               const std::vector<int>& members);

/// The request for a collective among `members`, with the platform's calibration applied: the
/// protocol's step overhead on every step, its efficiency as extra bytes on the wire
/// (payload / efficiency), the platform chunk, node layout and reducing switch.
collectives::CollectiveRequest make_request(const topology::ClusterTopology& cluster, const CollectiveCase& c,
                                            std::vector<int> members);

/// The plan of the collective alone, every endpoint of the platform present (pure).
program::Plan plan_collective(const topology::ClusterTopology& cluster, const CollectiveCase& c);

/// Replays plan_collective() in a child process and measures it.
CollectiveTiming measure_collective(const topology::ClusterTopology& cluster, const CollectiveCase& c);

}  // namespace clearfog::driver
