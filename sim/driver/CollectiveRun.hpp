#pragma once
// One collective as a request the planners append, and one collective on its own as nccl-tests
// runs it: planned over the first `ranks` devices of a platform (in the platform's ring order),
// replayed in a child process, measured as time, algbw and busbw with nccl-tests' definitions
// (shared/reference/nccl_misc.md).
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "collectives/Collective.hpp"
#include "config/CollectiveSpec.hpp"
#include "config/PlatformSpec.hpp"
#include "driver/CollectiveChoice.hpp"
#include "program/Program.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::driver {

struct CollectiveCase {
  config::CollectiveOp op = config::CollectiveOp::AllReduce;
  config::CollectiveAlgorithm algorithm;  // nccl or concrete, never best
  std::optional<config::Protocol> protocol;  // forced (best's candidates); else chosen with the algorithm
  config::Fidelity fidelity = config::Fidelity::Step;
  int ranks = 0;      // the first `ranks` devices take part ...
  double bytes = 0;   // nccl-tests size convention (see CollectiveRequest::bytes)
  std::vector<int> members;  // ... unless these are given: an explicit group, in ring order
  /// all_to_all, hierarchical: network bytes per byte meant for a node's members (CollectiveRequest).
  double network_share = 1;
};

struct CollectiveTiming {
  double time_s = 0;
  double algbw_Bps = 0;  // bytes / time
  double busbw_Bps = 0;  // algbw x bus_bandwidth_factor
  std::uint64_t messages = 0;
  CollectivePlanChoice choice;  // what ran
};

/// nccl-tests' factor from algbw to busbw (doc/PERFORMANCE.md): 2(n-1)/n for all_reduce, (n-1)/n
/// for reduce_scatter, all_gather and all_to_all, 1 for broadcast, reduce and sendrecv.
double bus_bandwidth_factor(config::CollectiveOp op, int ranks);

/// The devices 0 … ranks-1, in the order the platform's ring visits them.
std::vector<int> collective_members(const topology::ClusterTopology& cluster, int ranks);

/// Latency of one ring step: the slowest route between consecutive members (across nodes: both
/// NICs and a fabric link up and down).
double step_latency_s(const topology::ClusterTopology& cluster, const std::vector<int>& members);

/// The request for `op` over `members` carrying out `choice` with the platform's figures: the
/// protocol's efficiency as extra bytes on the wire (payload / efficiency) and its step overhead on
/// every step (in-switch: NVLS's efficiency and its latency once); the pipelining chunk NCCL uses
/// for the algorithm (docs/collectives.md); node layout, channels and reducing switch.
collectives::CollectiveRequest make_request(const topology::ClusterTopology& cluster, config::CollectiveOp op,
                                            std::vector<int> members, double bytes,
                                            const CollectivePlanChoice& choice, config::Fidelity fidelity);

/// The plan of the collective alone, every endpoint of the platform present (pure); `log`, when
/// given, records what ran.
program::Plan plan_collective(const topology::ClusterTopology& cluster, const CollectiveCase& c,
                              std::shared_ptr<collectives::CollectiveLog> log = nullptr);

/// Replays plan_collective() in a child process and measures it.
CollectiveTiming measure_collective(const topology::ClusterTopology& cluster, const CollectiveCase& c);

}  // namespace clearfog::driver
