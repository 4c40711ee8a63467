#include "driver/CollectiveRun.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/Errors.hpp"
#include "engine/ForkedRun.hpp"

namespace clearfog::driver {

double bus_bandwidth_factor(config::CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case config::CollectiveOp::AllReduce: return 2.0 * (n - 1) / n;
    case config::CollectiveOp::ReduceScatter:
    case config::CollectiveOp::AllGather:
    case config::CollectiveOp::AllToAll: return (n - 1) / n;
    case config::CollectiveOp::Broadcast:
    case config::CollectiveOp::Reduce:
    case config::CollectiveOp::SendRecv: return 1.0;
  }
  return 1.0;
}

std::vector<int> collective_members(const topology::ClusterTopology& cluster, int ranks) {
  if (ranks < 1 || ranks > cluster.device_count())
    throw ConfigError({Diagnostic{{"--ranks", 0, 0}, "ranks",
                                  fmt::format("must be between 1 and the platform's {} devices, got {}",
                                              cluster.device_count(), ranks)}});
  std::vector<int> members;
  for (int d : cluster.ring_order())
    if (d < ranks) members.push_back(d);
  return members;
}

/// Latency of one step between ring neighbours: the slowest route among consecutive members.
/// Routes across nodes add the NICs on both sides and one fabric link each way up and down.
double step_latency_s(const topology::ClusterTopology& cluster, const std::vector<int>& members) {
  const auto& fabric = cluster.platform().fabric;
  double worst = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const int a = members[i];
    const int b = members[(i + 1) % members.size()];
    if (a == b) continue;
    double lat;
    if (cluster.node_of(a) == cluster.node_of(b)) {
      lat = cluster.node().route_latency_s(cluster.local_index(a), cluster.local_index(b));
    } else {
      lat = 2 * fabric.nic.latency_s + 2 * fabric.link.latency_s;
    }
    worst = std::max(worst, lat);
  }
  return worst;
}

bool spans_nodes(const topology::ClusterTopology& cluster, const std::vector<int>& members) {
  return std::any_of(members.begin(), members.end(),
                     [&](int m) { return cluster.node_of(m) != cluster.node_of(members.front()); });
}

config::CollectiveProtocol calibrated_protocol(const topology::ClusterTopology& cluster,
                                               const config::CollectiveProtocol& protocol,
                                               const std::vector<int>& members) {
  const auto& calibration = cluster.platform().collectives;
  if (!spans_nodes(cluster, members) && calibration.intra_node_efficiency > 0 && protocol.name == "simple")
    return {protocol.name, calibration.intra_node_efficiency, calibration.intra_node_step_overhead_s};
  return protocol;
}

collectives::CollectiveRequest make_request(const topology::ClusterTopology& cluster, const CollectiveCase& c,
                                            std::vector<int> members) {
  const auto& calibration = cluster.platform().collectives;
  const bool across_nodes = spans_nodes(cluster, members);
  const config::CollectiveProtocol protocol = calibrated_protocol(cluster, c.protocol, members);
  collectives::CollectiveRequest r;
  r.op = c.op;
  r.algorithm = c.algorithm;
  r.fidelity = c.fidelity;
  r.bytes = c.bytes / protocol.efficiency;  // protocol overhead travels on the wire too
  r.root = 0;
  r.ranks_per_node = std::min<int>(static_cast<int>(members.size()), cluster.devices_per_node());
  if (!members.empty()) r.switch_endpoint = cluster.reduction_switch(cluster.node_of(members.front()));
  r.step_overhead_s = protocol.step_overhead_s;
  r.step_latency_s = step_latency_s(cluster, members);
  r.chunk_B = calibration.chunk_B;
  // Across nodes NCCL runs one ring per NIC so that every NIC carries traffic (rail-optimized).
  if (across_nodes && cluster.platform().fabric.nic_count > 1) r.channels = cluster.platform().fabric.nic_count;
  r.stream = program::Stream::Comm;
  r.category = program::Category::DataParallelComm;
  r.name = fmt::format("{}.{}", config::collective_op_name(c.op), config::collective_algorithm_name(c.algorithm));
  r.deps.assign(members.size(), {});
  r.ranks = std::move(members);
  if (c.op == config::CollectiveOp::SendRecv) r.ranks.resize(std::min<std::size_t>(r.ranks.size(), 2));
  r.deps.resize(r.ranks.size());
  return r;
}

program::Plan plan_collective(const topology::ClusterTopology& cluster, const CollectiveCase& c) {
  program::Plan plan;
  plan.ranks.resize(cluster.endpoint_count());
  collectives::TagAllocator tags;
  collectives::append_collective(plan, make_request(cluster, c, collective_members(cluster, c.ranks)), tags);
  return plan;
}

CollectiveTiming measure_collective(const topology::ClusterTopology& cluster, const CollectiveCase& c) {
  const auto result = engine::simulate_forked(cluster, plan_collective(cluster, c));
  CollectiveTiming t;
  t.time_s = result.makespan_s;
  t.algbw_Bps = c.bytes / t.time_s;
  t.busbw_Bps = t.algbw_Bps * bus_bandwidth_factor(c.op, c.op == config::CollectiveOp::SendRecv ? 2 : c.ranks);
  t.messages = result.messages;
  return t;
}

}  // namespace clearfog::driver
