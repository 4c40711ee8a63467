#include "driver/CollectiveRun.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "core/Errors.hpp"
#include "engine/ForkedRun.hpp"

namespace clearfog::driver {
namespace {

using config::CollectiveOp;
using config::Protocol;

/// The payload each pipeline round carries (0: none; < 0: the platform's calibrated chunk), as
/// the algorithm sizes it (CollectiveAlgorithmType::pipeline_chunk_B).
double pipeline_chunk_B(const topology::ClusterTopology& cluster, CollectiveOp op, const std::vector<int>& members,
                        double bytes, const CollectivePlanChoice& choice) {
  const collectives::ChunkContext context{.members = static_cast<int>(members.size()),
                                          .ranks_per_node = ranks_per_node(cluster, members),
                                          .channels = choice.channels,
                                          .protocol = choice.protocol.kind,
                                          .bytes = bytes};
  return choice.algorithm.type().pipeline_chunk_B(op, context).value_or(-1.0);
}

/// The cycles a ring's channels take through each node's block of `members`: the family of the
/// first block's devices (topology/RingFamily.hpp). None for other algorithms and operations, or
/// where blocks sit on different local devices (their links could differ).
std::vector<std::vector<int>> ring_family_of(const topology::ClusterTopology& cluster, CollectiveOp op,
                                             const std::vector<int>& members, const CollectivePlanChoice& choice) {
  const int m = ranks_per_node(cluster, members);
  if (!choice.algorithm.type().follows_ring_family(op) || m < 3) return {};
  std::vector<int> locals;
  for (int i = 0; i < m; ++i) locals.push_back(cluster.local_index(members[static_cast<std::size_t>(i)]));
  for (std::size_t i = 0; i < members.size(); ++i)
    if (cluster.local_index(members[i]) != locals[i % static_cast<std::size_t>(m)]) return {};
  return cluster.ring_family(locals).rings;
}

}  // namespace

double bus_bandwidth_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::AllReduce: return 2.0 * (n - 1) / n;
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllGather:
    case CollectiveOp::AllToAll: return (n - 1) / n;
    case CollectiveOp::Broadcast:
    case CollectiveOp::Reduce:
    case CollectiveOp::SendRecv: return 1.0;
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

collectives::CollectiveRequest make_request(const topology::ClusterTopology& cluster, CollectiveOp op,
                                            std::vector<int> members, double bytes,
                                            const CollectivePlanChoice& choice, config::Fidelity fidelity) {
  const auto& calibration = cluster.platform().collectives;
  const collectives::CollectiveAlgorithmType& type = choice.algorithm.type();
  const bool nvls = type.reduces_in_switch();
  const bool copy = op == CollectiveOp::AllGather || op == CollectiveOp::AllToAll || op == CollectiveOp::Broadcast ||
                    op == CollectiveOp::SendRecv;
  const double efficiency = nvls ? calibration.in_switch_efficiency
                            : copy ? choice.protocol.copy_efficiency
                                   : choice.protocol.efficiency;
  collectives::CollectiveRequest r;
  r.op = op;
  r.algorithm = choice.algorithm;
  r.fidelity = fidelity;
  r.bytes = bytes / efficiency;  // protocol overhead travels on the wire too
  r.payload_B = bytes;
  r.protocol = choice.protocol.kind;
  r.channels = choice.channels;
  r.root = 0;
  r.ranks_per_node = ranks_per_node(cluster, members);
  r.rings = ring_family_of(cluster, op, members, choice);
  if (op == CollectiveOp::AllToAll) {
    // A hierarchical all-to-all's forwards and same-node sends cross the node's links, at the
    // node's own protocol figures (a planner may switch an all-to-all to it: DeepEP's dispatch).
    if (const auto node = calibration.protocol(choice.protocol.kind, true)) r.node_scale = efficiency / node->copy_efficiency;
  }
  if (nvls) {
    // Each node's reducing switch, in the members' node order (one run of members per node).
    const std::size_t run = r.ranks_per_node > 0 ? static_cast<std::size_t>(r.ranks_per_node) : members.size();
    for (std::size_t i = 0; i < members.size(); i += run)
      if (const auto sw = cluster.reduction_switch(cluster.node_of(members[i]))) r.switch_endpoints.push_back(*sw);
    // Across nodes the tree runs at the cross-node Simple figures, the rest at the switches'.
    if (spans_nodes(cluster, members))
      r.tree_scale = efficiency / calibration.protocol(Protocol::Simple, false)->efficiency;
  }
  const bool pipelined = type.pipelined(op);
  r.step_overhead_s = pipelined ? 0.0 : choice.protocol.step_overhead_s;
  r.launch_overhead_s = nvls ? calibration.in_switch_latency_s : pipelined ? choice.protocol.step_overhead_s : 0.0;
  r.step_latency_s = step_latency_s(cluster, members);
  const double pipeline_B = pipeline_chunk_B(cluster, op, members, bytes, choice);
  r.chunk_B = pipeline_B < 0 ? calibration.chunk_B : pipeline_B / efficiency;
  r.stream = program::Stream::Comm;
  r.category = program::Category::DataParallelComm;
  r.name = fmt::format("{}.{}", config::collective_op_name(op), config::collective_algorithm_name(choice.algorithm));
  r.ranks = std::move(members);
  if (op == CollectiveOp::SendRecv) r.ranks.resize(std::min<std::size_t>(r.ranks.size(), 2));
  r.deps.assign(r.ranks.size(), {});
  return r;
}

namespace {

std::vector<int> case_members(const topology::ClusterTopology& cluster, const CollectiveCase& c) {
  auto members = c.members.empty() ? collective_members(cluster, c.ranks) : c.members;
  if (c.op == CollectiveOp::SendRecv) members.resize(std::min<std::size_t>(members.size(), 2));
  return members;
}

program::Plan plan_choice(const topology::ClusterTopology& cluster, const CollectiveCase& c,
                          std::vector<int> members, const CollectivePlanChoice& choice,
                          std::shared_ptr<collectives::CollectiveLog> log) {
  program::Plan plan;
  plan.ranks.resize(cluster.endpoint_count());
  collectives::TagAllocator tags;
  auto request = make_request(cluster, c.op, std::move(members), c.bytes, choice, c.fidelity);
  request.network_share = c.network_share;
  request.log = std::move(log);
  collectives::append_collective(plan, request, tags);
  return plan;
}

}  // namespace

program::Plan plan_collective(const topology::ClusterTopology& cluster, const CollectiveCase& c,
                              std::shared_ptr<collectives::CollectiveLog> log) {
  const auto members = case_members(cluster, c);
  const auto choice = choose_collective(cluster, c.op, members, c.bytes, c.algorithm, c.protocol);
  return plan_choice(cluster, c, members, choice, std::move(log));
}

CollectiveTiming measure_collective(const topology::ClusterTopology& cluster, const CollectiveCase& c) {
  const auto members = case_members(cluster, c);
  CollectiveTiming t;
  t.choice = choose_collective(cluster, c.op, members, c.bytes, c.algorithm, c.protocol);
  // A collective alone on the platform: its identical channel flows may share a comm (exact where
  // the route check allows, engine/FlowMerging.hpp).
  engine::ReplayOptions options;
  options.merge_identical_flows = true;
  const auto result = engine::simulate_forked(cluster, plan_choice(cluster, c, members, t.choice, nullptr), options);
  t.time_s = result.makespan_s;
  t.algbw_Bps = c.bytes / t.time_s;
  t.busbw_Bps = t.algbw_Bps * bus_bandwidth_factor(c.op, static_cast<int>(members.size()));
  t.messages = result.messages;
  return t;
}

}  // namespace clearfog::driver
