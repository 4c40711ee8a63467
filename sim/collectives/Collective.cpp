#include "collectives/Collective.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "collectives/AppendSchedule.hpp"
#include "collectives/CollectiveAlgorithmType.hpp"
#include "core/Errors.hpp"

namespace clearfog::collectives {
namespace {

using config::CollectiveAlgorithm;
using config::CollectiveOp;

std::string implemented_ops(CollectiveAlgorithm algorithm) {
  std::string list;
  for (CollectiveOp op : config::kAllCollectiveOps)
    if (supports(op, algorithm)) list += fmt::format("{}{}", list.empty() ? "" : ", ", config::collective_op_name(op));
  return list.empty() ? "nothing" : list;
}

void check(const program::Plan& plan, const CollectiveRequest& r) {
  const int p = static_cast<int>(r.ranks.size());
  if (p == 0) throw Error("has no members");
  for (int rank : r.ranks)
    if (rank < 0 || rank >= plan.rank_count())
      throw Error(fmt::format("member rank {} is outside the plan's ranks 0..{}", rank, plan.rank_count() - 1));
  std::vector<int> seen = r.ranks;  // sorted: a rank named twice sits next to itself
  std::sort(seen.begin(), seen.end());
  if (const auto twice = std::adjacent_find(seen.begin(), seen.end()); twice != seen.end())
    throw Error(fmt::format("names rank {} twice", *twice));
  const auto is_member = [&](int rank) { return std::binary_search(seen.begin(), seen.end(), rank); };
  if (!(r.bytes >= 0) || !std::isfinite(r.bytes)) throw Error(fmt::format("bytes must be >= 0, got {}", r.bytes));
  if (!(r.step_overhead_s >= 0) || !(r.step_latency_s >= 0) || !(r.chunk_B >= 0) || !(r.launch_overhead_s >= 0) ||
      !(r.tree_scale > 0))
    throw Error(fmt::format("step_overhead_s, launch_overhead_s, step_latency_s and chunk_B must be >= 0, got {}, "
                            "{}, {}, {}",
                            r.step_overhead_s, r.launch_overhead_s, r.step_latency_s, r.chunk_B));
  if (r.channels < 1) throw Error(fmt::format("channels must be >= 1, got {}", r.channels));
  if (!r.deps.empty() && static_cast<int>(r.deps.size()) != p)
    throw Error(fmt::format("has {} members but dependencies for {}", p, r.deps.size()));
  if ((r.op == CollectiveOp::Broadcast || r.op == CollectiveOp::Reduce) && (r.root < 0 || r.root >= p))
    throw Error(fmt::format("root position {} is outside the members 0..{}", r.root, p - 1));
  if (!r.matrix.empty()) {
    if (r.op != CollectiveOp::AllToAll) throw Error("a per-pair byte matrix is for all_to_all only");
    if (static_cast<int>(r.matrix.size()) != p)
      throw Error(fmt::format("all-to-all-v matrix has {} rows for {} members", r.matrix.size(), p));
    for (const auto& row : r.matrix) {
      if (static_cast<int>(row.size()) != p)
        throw Error(fmt::format("all-to-all-v matrix row has {} entries for {} members", row.size(), p));
      for (double b : row)
        if (!(b >= 0) || !std::isfinite(b)) throw Error(fmt::format("all-to-all-v bytes must be >= 0, got {}", b));
    }
  }
  if (!(r.network_share > 0 && r.network_share <= 1))
    throw Error(fmt::format("network_share must be in (0, 1], got {}", r.network_share));
  if (!(r.node_scale > 0) || !std::isfinite(r.node_scale))
    throw Error(fmt::format("node_scale must be > 0, got {}", r.node_scale));
  if (r.op == CollectiveOp::SendRecv && p != 2)
    throw Error(fmt::format("sendrecv takes ranks = {{src, dst}}, got {} ranks", p));
  for (int sw : r.switch_endpoints) {
    if (sw < 0 || sw >= plan.rank_count())
      throw Error(fmt::format("switch endpoint {} is outside the plan's ranks 0..{}", sw, plan.rank_count() - 1));
    if (is_member(sw)) throw Error(fmt::format("switch endpoint {} is also a member", sw));
  }
}

/// Every field of `r` that an algorithm's schedule() reads; `matrix` and `payload_B`
/// only matter with a matrix, and such requests are not cached.
ScheduleShape shape_of(const CollectiveRequest& r) {
  return {.op = r.op,
          .algorithm = r.algorithm,
          .fidelity = r.fidelity,
          .members = static_cast<int>(r.ranks.size()),
          .root = r.root,
          .ranks_per_node = r.ranks_per_node,
          .channels = r.channels,
          .rings = r.rings,
          .bytes = r.bytes,
          .chunk_B = r.chunk_B,
          .network_share = r.network_share,
          .node_scale = r.node_scale,
          .tree_scale = r.tree_scale};
}

}  // namespace

bool supports(CollectiveOp op, CollectiveAlgorithm algorithm) {
  return algorithm.is_concrete() && algorithm.type().implements(op);
}

namespace {

/// `request` with its per-member deps and matrix moved from the caller's order to ring order.
CollectiveRequest in_ring_positions(const CollectiveRequest& request) {
  CollectiveRequest r = request;
  const auto& from = request.caller_index;
  if (!request.deps.empty())
    for (std::size_t i = 0; i < from.size(); ++i) r.deps[i] = request.deps.at(static_cast<std::size_t>(from[i]));
  if (!request.matrix.empty())
    for (std::size_t i = 0; i < from.size(); ++i)
      for (std::size_t j = 0; j < from.size(); ++j)
        r.matrix[i][j] = request.matrix.at(static_cast<std::size_t>(from[i])).at(static_cast<std::size_t>(from[j]));
  r.caller_index.clear();
  return r;
}

}  // namespace

namespace {

std::vector<program::OpIndex> append_checked(program::Plan& plan, const CollectiveRequest& request, TagAllocator& tags,
                                             ScheduleCache* cache) {
  if (!request.caller_index.empty()) {
    if (request.caller_index.size() != request.ranks.size())
      throw Error(fmt::format("collective '{}': {} caller positions for {} members", request.name,
                              request.caller_index.size(), request.ranks.size()));
    auto ring_ops = append_checked(plan, in_ring_positions(request), tags, cache);
    auto ops = ring_ops;
    for (std::size_t i = 0; i < request.caller_index.size(); ++i)
      ops[static_cast<std::size_t>(request.caller_index[i])] = ring_ops[i];
    return ops;
  }
  // Formatted only on error: this runs for every collective of a plan.
  const auto what = [&] {
    return fmt::format("collective {} ({} algorithm{})", config::collective_op_name(request.op),
                       config::collective_algorithm_name(request.algorithm),
                       request.name.empty() ? "" : fmt::format(", '{}'", request.name));
  };
  if (!request.algorithm.is_concrete())
    throw Error(fmt::format("{}: '{}' must be resolved to an algorithm before planning", what(),
                            config::collective_algorithm_name(request.algorithm)));
  if (!supports(request.op, request.algorithm))
    throw Error(fmt::format("{}: the {} algorithm has no {} (it implements: {})", what(),
                            config::collective_algorithm_name(request.algorithm),
                            config::collective_op_name(request.op), implemented_ops(request.algorithm)));
  const CollectiveAlgorithmType& type = request.algorithm.type();
  LoweredSchedule uncached;
  const LoweredSchedule* lowered = &uncached;
  try {
    check(plan, request);
    if (const auto why = type.refusal(request.op, group_shape(request))) throw Error(fmt::format("cannot run: {}", *why));
    type.check(plan, request);
    const auto make = [&] { return lower_schedule(type.schedule(request), request.fidelity); };
    if (cache != nullptr && request.matrix.empty())
      lowered = &cache->lowered(shape_of(request), make);
    else
      uncached = make();
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", what(), e.what()));
  }
  std::vector<int> with_switches;
  std::span<const int> endpoints = request.ranks;
  if (type.reduces_in_switch()) {
    with_switches = request.ranks;
    with_switches.insert(with_switches.end(), request.switch_endpoints.begin(), request.switch_endpoints.end());
    endpoints = with_switches;
  }
  const Lowering lowering{.endpoints = endpoints,
                          .members = static_cast<int>(request.ranks.size()),
                          .step_overhead_s = request.step_overhead_s,
                          .launch_overhead_s = request.launch_overhead_s,
                          .step_latency_s = request.step_latency_s,
                          .stream = request.stream,
                          .category = request.category,
                          .name = request.name,
                          .deps = &request.deps};
  std::vector<OpRange> ranges;
  if (request.log)
    for (int e : endpoints) ranges.push_back({e, plan.ranks[e].size(), 0});
  auto last = append_lowered(plan, *lowered, lowering, tags);
  if (request.log) {
    for (OpRange& range : ranges) range.end = plan.ranks[range.rank].size();
    request.log->add({request.name, request.op, static_cast<int>(request.ranks.size()),
                      request.payload_B >= 0 ? request.payload_B : request.bytes, request.algorithm, request.protocol,
                      request.channels, std::move(ranges), request.bytes, request.matrix, request.network_share});
  }
  return last;
}

}  // namespace

std::vector<program::OpIndex> append_collective(program::Plan& plan, const CollectiveRequest& request,
                                                TagAllocator& tags) {
  return append_checked(plan, request, tags, nullptr);
}

std::vector<program::OpIndex> append_collective(program::Plan& plan, const CollectiveRequest& request,
                                                TagAllocator& tags, ScheduleCache& cache) {
  return append_checked(plan, request, tags, &cache);
}

}  // namespace clearfog::collectives
