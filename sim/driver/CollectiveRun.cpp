#include "driver/CollectiveRun.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "collectives/Tree.hpp"
#include "core/Errors.hpp"
#include "engine/ForkedRun.hpp"

namespace clearfog::driver {
namespace {

using config::CollectiveAlgorithm;
using config::CollectiveOp;
using config::Protocol;

// NCCL 2.18.5, src/init.cc: buffers of 8 steps (NCCL_STEPS) per protocol: Simple 4 MiB, LL
// 8 lines x 512 threads x 16 B (half of it flags), LL128 120 words x 640 threads x 8 B (15 of 16
// words data). One step of payload is what a channel pipelines at a time.
constexpr double kSimpleStep_B = 4.0 * 1024 * 1024 / 8;
constexpr double kLLStep_B = 8.0 * 512 * 16 / 2;
constexpr double kLL128StepWire_B = 120.0 * 640 * 8;
constexpr double kLL128Step_B = kLL128StepWire_B * 15 / 16;

/// Tree chunk per channel (src/enqueue.cc computeColl): Simple halves its 512 KiB step while the
/// tree would get too few chunks per level; LL128 the same against 1 + log2(nodes) + ppn/10 steps.
double tree_chunk_B(Protocol p, double bytes, int channels, int depth, int nodes, double ppn) {
  const double c = std::max(1, channels);
  if (p == Protocol::LL) return kLLStep_B;
  if (p == Protocol::LL128) {
    double chunk = kLL128StepWire_B;
    const double steps = 1 + std::floor(std::log2(std::max(1, nodes))) + 0.1 * ppn;
    while (bytes / (c * chunk) < steps * 64 / ppn && chunk > 131072) chunk /= 2;
    while (bytes / (c * chunk) < steps * 16 / ppn && chunk > 32768) chunk /= 2;
    return chunk * 15 / 16;
  }
  double chunk = kSimpleStep_B;
  while (bytes / (c * chunk) < depth * 8 && chunk > 131072) chunk /= 2;
  while (bytes / (c * chunk) < depth * 4 && chunk > 65536) chunk /= 2;
  while (bytes / (c * chunk) < depth && chunk > 32768) chunk /= 2;
  return chunk;
}

/// What NVLS moves per pipeline round (src/enqueue.cc computeColl): every channel a chunk per head
/// (each member of a node), 128 KiB cut to 64, 32 and 16 KiB for smaller buffers.
double nvls_loop_B(double bytes, int channels, int heads) {
  const double ops = static_cast<double>(std::max(1, channels)) * std::max(1, heads);
  double chunk = 131072;
  if (bytes < 64 * ops * chunk && chunk > 65536) chunk = 65536;
  if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
  if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
  return ops * chunk;
}

/// The same for NVLSTree: the Simple step of 512 KiB cut to 256, 128, 64 and 32 KiB below 32, 16,
/// 4 and 1 loops.
double nvls_tree_loop_B(double bytes, int channels, int heads) {
  const double ops = static_cast<double>(std::max(1, channels)) * std::max(1, heads);
  double chunk = kSimpleStep_B;
  if (bytes < 32 * ops * chunk && chunk > 262144) chunk = 262144;
  if (bytes < 16 * ops * chunk && chunk > 131072) chunk = 131072;
  if (bytes < 4 * ops * chunk && chunk > 65536) chunk = 65536;
  if (bytes < 1 * ops * chunk && chunk > 32768) chunk = 32768;
  return ops * chunk;
}

double step_B(Protocol p) {
  return p == Protocol::LL ? kLLStep_B : p == Protocol::LL128 ? kLL128Step_B : kSimpleStep_B;
}

/// The payload each pipeline round carries (0: none): rooted rings and trees pipeline NCCL's
/// steps over their channels, NVLS its loops; ring reductions and gathers keep the platform's
/// calibrated chunk (their step overhead was fitted with it).
double pipeline_chunk_B(const topology::ClusterTopology& cluster, CollectiveOp op, const std::vector<int>& members,
                        double bytes, const CollectivePlanChoice& choice) {
  const int p = static_cast<int>(members.size());
  switch (choice.algorithm) {
    case CollectiveAlgorithm::Ring:
      if (op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce) return choice.channels * step_B(choice.protocol.kind);
      return -1;
    case CollectiveAlgorithm::Tree: {
      if (op != CollectiveOp::AllReduce) return 0;  // binomial: whole buffers
      const int m = ranks_per_node(cluster, members);
      const int depth = collectives::tree_depth(m > 0 ? collectives::nccl_tree_parents(p, m, false)
                                                      : collectives::double_binary_tree_parents(p, false));
      const int nodes = m > 0 ? p / m : 1;
      const double ppn = static_cast<double>(p) / nodes;
      // Each tree runs on half the channels.
      return std::max(1, choice.channels / 2) *
             tree_chunk_B(choice.protocol.kind, bytes, choice.channels, depth, nodes, ppn);
    }
    case CollectiveAlgorithm::InSwitch: return nvls_loop_B(bytes, choice.channels, p);
    case CollectiveAlgorithm::NvlsTree:
      return nvls_tree_loop_B(bytes, choice.channels, std::max(1, ranks_per_node(cluster, members)));
    default: return -1;
  }
}

/// The cycles a ring's channels take through each node's block of `members`: the family of the
/// first block's devices (topology/RingFamily.hpp). None for other algorithms and operations, or
/// where blocks sit on different local devices (their links could differ).
std::vector<std::vector<int>> ring_family_of(const topology::ClusterTopology& cluster, CollectiveOp op,
                                             const std::vector<int>& members, const CollectivePlanChoice& choice) {
  const bool reduce_or_gather =
      op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllGather;
  const int m = ranks_per_node(cluster, members);
  if (choice.algorithm != CollectiveAlgorithm::Ring || !reduce_or_gather || m < 3) return {};
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
  const bool nvls = choice.algorithm == CollectiveAlgorithm::InSwitch || choice.algorithm == CollectiveAlgorithm::NvlsTree;
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
  if (!members.empty()) r.switch_endpoint = cluster.reduction_switch(cluster.node_of(members.front()));
  if (choice.algorithm == CollectiveAlgorithm::NvlsTree) {
    for (std::size_t i = 0; i < members.size(); i += static_cast<std::size_t>(r.ranks_per_node))
      r.switch_endpoints.push_back(*cluster.reduction_switch(cluster.node_of(members[i])));
    // The tree crosses the fabric with the cross-node Simple figures, the rest the switches'.
    r.tree_scale = efficiency / calibration.protocol(Protocol::Simple, false)->efficiency;
  }
  // Pipelined algorithms pay the protocol's step cost once per member, not per chunk: NCCL streams
  // chunks through NCCL_STEPS buffer slots, so their synchronisation overlaps (docs/collectives.md).
  const bool pipelined = nvls || (choice.algorithm == CollectiveAlgorithm::Tree && op == CollectiveOp::AllReduce) ||
                         (choice.algorithm == CollectiveAlgorithm::Ring &&
                          (op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce));
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
