#pragma once
// Which of a platform's protocols (NCCL's Simple or LL) a collective over an arbitrary device group
// uses: the one with the least closed-form ring time, as NCCL's tuner decides from its own cost
// model. Used for the tensor-, data-parallel and ZeRO groups of 3D runs, which are not the first
// `ranks` devices a tuning table is built on. Model: docs/collectives.md, "Protocols of groups".
#include <vector>

#include "config/CollectiveSpec.hpp"
#include "config/PlatformSpec.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::driver {

/// Bandwidth of one ring step among `members`, per member: the slowest route between neighbours
/// inside a node; across nodes, the node's NIC bandwidth shared by its devices, times the group's
/// members on that node (a group with one device per node gets one NIC's worth).
double ring_step_bandwidth_Bps(const topology::ClusterTopology& cluster, const std::vector<int>& members);

/// steps x (route latency + protocol step overhead) + steps x (bytes per step) / (efficiency x B):
/// all-reduce 2(p-1) steps of n/p, reduce-scatter / all-gather / all-to-all p-1 of n/p,
/// send-receive one of n; `protocol` with the platform's calibration for the group applied.
double ring_time_estimate_s(const topology::ClusterTopology& cluster, config::CollectiveOp op,
                            const std::vector<int>& members, double bytes, const config::CollectiveProtocol& protocol);

/// The platform protocol with the least ring_time_estimate_s (ties: the first listed, "simple").
config::CollectiveProtocol fastest_protocol(const topology::ClusterTopology& cluster, config::CollectiveOp op,
                                            const std::vector<int>& members, double bytes);

}  // namespace clearfog::driver
