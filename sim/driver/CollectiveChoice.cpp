#include "driver/CollectiveChoice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "collectives/Collective.hpp"
#include "collectives/CollectiveAlgorithmType.hpp"
#include "core/Errors.hpp"
#include "topology/NodeTopologyType.hpp"

namespace clearfog::driver {
namespace {

using collectives::NcclAlgorithm;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

collectives::NcclArch nccl_arch(config::GpuArch a) {
  switch (a) {
    case config::GpuArch::Volta: return collectives::NcclArch::Volta;
    case config::GpuArch::Ampere: return collectives::NcclArch::Ampere;
    case config::GpuArch::Hopper: return collectives::NcclArch::Hopper;
  }
  return collectives::NcclArch::Ampere;
}

/// What one device injects into its node: the sum of its links' bandwidths, one direction.
double device_injection_Bps(const topology::TopologyGraph& node) {
  double sum = 0;
  const auto& g = node.graph();
  for (auto [it, end] = boost::out_edges(node.device_vertex(0), g); it != end; ++it)
    sum += node.links()[g[*it].index].bandwidth_Bps;
  return sum;
}

/// The registered algorithm that is NCCL's `a` (CollNet is never offered by the tuner: not simulated).
CollectiveAlgorithm from_nccl(NcclAlgorithm a) {
  const auto& types = collectives::collective_algorithm_types();
  for (std::size_t i = 0; i < types.size(); ++i)
    if (types[i]->nccl_counterpart() == a) return CollectiveAlgorithm::registered(static_cast<int>(i));
  throw Error(fmt::format("NCCL's {} algorithm has no registered counterpart", collectives::nccl_algorithm_name(a)));
}

/// NCCL's algorithm for a clearfog one; those NCCL lacks take the ring's protocol and channels.
NcclAlgorithm to_nccl(CollectiveAlgorithm a) { return a.type().nccl_counterpart().value_or(NcclAlgorithm::Ring); }

bool point_to_point(CollectiveOp op) { return op == CollectiveOp::AllToAll || op == CollectiveOp::SendRecv; }

}  // namespace

bool spans_nodes(const topology::ClusterTopology& cluster, const std::vector<int>& members) {
  return std::any_of(members.begin(), members.end(),
                     [&](int m) { return cluster.node_of(m) != cluster.node_of(members.front()); });
}

int ranks_per_node(const topology::ClusterTopology& cluster, const std::vector<int>& members) {
  if (members.empty()) return 0;
  std::size_t run = 1;
  while (run < members.size() && cluster.node_of(members[run]) == cluster.node_of(members.front())) ++run;
  if (members.size() % run != 0) return 0;
  std::set<int> seen;
  for (std::size_t start = 0; start < members.size(); start += run) {
    const int node = cluster.node_of(members[start]);
    if (!seen.insert(node).second) return 0;
    for (std::size_t i = start; i < start + run; ++i)
      if (cluster.node_of(members[i]) != node) return 0;
  }
  return static_cast<int>(run);
}

std::optional<config::CollectiveProtocol> group_protocol(const topology::ClusterTopology& cluster,
                                                         const std::vector<int>& members, config::Protocol p) {
  return cluster.platform().collectives.protocol(p, !spans_nodes(cluster, members));
}

collectives::NcclSystem nccl_system(const topology::ClusterTopology& cluster, const std::vector<int>& members) {
  const config::PlatformSpec& platform = cluster.platform();
  collectives::NcclSystem s;
  s.ranks = static_cast<int>(members.size());
  std::set<int> nodes;
  for (int m : members) nodes.insert(cluster.node_of(m));
  s.nodes = std::max<int>(1, static_cast<int>(nodes.size()));
  s.arch = nccl_arch(platform.collectives.arch);
  s.nvlink = topology::node_topology_type(platform.node.topology).nvlink_class();
  if (cluster.devices_per_node() > 1)
    s.gpu_GBps = (s.nvlink ? kNcclNvlinkRating : kNcclPciRating) * device_injection_Bps(cluster.node()) / 1e9;
  if (s.nodes > 1) {
    std::set<int> nics;
    for (int m : members)
      if (cluster.node_of(m) == cluster.node_of(members.front())) nics.insert(cluster.nic_of(m));
    s.nics = static_cast<int>(nics.size());
    s.nic_GBps = platform.fabric.nic.bandwidth_Bps / 1e9;
    // A group with one GPU per node still routes inside its node (PXN): NCCL's totalBw is NVLink's.
    if (!(s.gpu_GBps > 0)) s.gpu_GBps = s.nic_GBps * s.nics;
  }
  // NVLS inside one node, NVLSTree across nodes: both need two GPUs per node at least.
  s.nvls = platform.node.in_switch_reduction && s.ranks / s.nodes >= 2;
  s.protocols = {group_protocol(cluster, members, config::Protocol::LL).has_value(),
                 group_protocol(cluster, members, config::Protocol::LL128).has_value(), true};
  return s;
}

collectives::GroupShape group_shape(const topology::ClusterTopology& cluster, const std::vector<int>& members) {
  return {.members = static_cast<int>(members.size()),
          .spans_nodes = spans_nodes(cluster, members),
          .ranks_per_node = ranks_per_node(cluster, members),
          .reducing_switch = cluster.reduction_switch(0).has_value()};
}

bool can_run(const topology::ClusterTopology& cluster, CollectiveOp op, const std::vector<int>& members,
             CollectiveAlgorithm algorithm) {
  return collectives::supports(op, algorithm) && !algorithm.type().refusal(op, group_shape(cluster, members));
}

CollectivePlanChoice choose_collective(const topology::ClusterTopology& cluster, CollectiveOp op,
                                       const std::vector<int>& members, double bytes, CollectiveAlgorithm requested,
                                       std::optional<config::Protocol> protocol) {
  if (requested.is_best())
    throw Error("choose_collective: 'best' is resolved by simulating the candidates (TuningTable)");
  const collectives::NcclTuner tuner(nccl_system(cluster, members));
  const bool explicit_algorithm = can_run(cluster, op, members, requested);
  collectives::NcclChoice c;
  CollectiveAlgorithm algorithm = requested;
  if (point_to_point(op)) {
    c = tuner.choose(op, bytes);
    // NCCL's point-to-point operations are direct sends.
    if (!explicit_algorithm) algorithm = collectives::collective_algorithm("direct");
  } else if (!explicit_algorithm) {
    c = tuner.choose(op, bytes);
    algorithm = from_nccl(c.algorithm);
  } else {
    // NCCL has no tree for the rooted operations: those take the ring's protocol and channels.
    NcclAlgorithm nccl = to_nccl(requested);
    if (!(tuner.bandwidth_GBps(op, nccl, config::Protocol::Simple) > 0)) nccl = NcclAlgorithm::Ring;
    c = tuner.choose(op, bytes, nccl);
  }
  if (protocol) {
    c.protocol = *protocol;
    c.channels = point_to_point(op) ? c.channels : tuner.channels_for(to_nccl(algorithm), *protocol, bytes);
  }
  const auto costs = group_protocol(cluster, members, c.protocol);
  if (!costs)
    throw Error(fmt::format("protocol {} has no figures on platform \"{}\" for this group",
                            config::protocol_name(c.protocol), cluster.platform().name));
  // NCCL's estimate of exactly what runs (the algorithm, the protocol as chosen or forced).
  const auto nccl = algorithm.type().nccl_counterpart();
  return {algorithm, *costs, c.channels, nccl ? tuner.estimate_s(op, *nccl, c.protocol, bytes) : std::nullopt};
}

}  // namespace clearfog::driver
