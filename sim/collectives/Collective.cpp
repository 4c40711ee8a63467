#include "collectives/Collective.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>

#include "collectives/AppendSchedule.hpp"
#include "collectives/Direct.hpp"
#include "collectives/HalvingDoubling.hpp"
#include "collectives/Hierarchical.hpp"
#include "collectives/HierarchicalAllToAll.hpp"
#include "collectives/InSwitch.hpp"
#include "collectives/NvlsTree.hpp"
#include "collectives/Ring.hpp"
#include "collectives/Tree.hpp"
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

/// Members per block a ring visits before leaving it: ranks_per_node across several nodes, else all.
int ring_block(const CollectiveRequest& r) {
  const int p = static_cast<int>(r.ranks.size()), m = r.ranks_per_node;
  return m > 0 && m < p && p % m == 0 ? m : p;
}

/// Each cycle of the ring family is an order of one block's positions.
void check_ring_family(const CollectiveRequest& r) {
  const int m = ring_block(r);
  for (const auto& ring : r.rings) {
    std::vector<int> sorted = ring;
    std::sort(sorted.begin(), sorted.end());
    if (static_cast<int>(sorted.size()) != m || sorted.front() != 0 || sorted.back() != m - 1 ||
        std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      throw Error(fmt::format("a ring of its family is not an order of a block's {} members", m));
  }
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
  check_ring_family(r);
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
  if (r.algorithm == CollectiveAlgorithm::InSwitch) {
    if (!r.switch_endpoint) throw Error("needs the reducing switch's endpoint, and the request names none "
                                        "(the platform has no in-switch reduction?)");
    const int sw = *r.switch_endpoint;
    if (sw < 0 || sw >= plan.rank_count())
      throw Error(fmt::format("switch endpoint {} is outside the plan's ranks 0..{}", sw, plan.rank_count() - 1));
    if (is_member(sw)) throw Error(fmt::format("switch endpoint {} is also a member", sw));
  }
  if (r.algorithm == CollectiveAlgorithm::NvlsTree) {
    if (r.ranks_per_node < 1 || p % r.ranks_per_node != 0 ||
        static_cast<int>(r.switch_endpoints.size()) != p / r.ranks_per_node)
      throw Error(fmt::format("needs members in nodes of ranks_per_node and one reducing switch per node, got {} "
                              "members, {} per node, {} switches",
                              p, r.ranks_per_node, r.switch_endpoints.size()));
    for (int sw : r.switch_endpoints)
      if (sw < 0 || sw >= plan.rank_count() || is_member(sw))
        throw Error(fmt::format("switch endpoint {} is outside the plan's ranks or a member", sw));
  }
}

/// The cycles through a block that `r`'s rings follow: its ring family, or the members' own order.
std::vector<std::vector<int>> block_cycles(const CollectiveRequest& r) {
  if (!r.rings.empty()) return r.rings;
  std::vector<int> own(static_cast<std::size_t>(ring_block(r)));
  std::iota(own.begin(), own.end(), 0);
  return {own};
}

/// The distinct rings of `r`'s channels side by side, each with an equal share: cycle k of the
/// block cycles with, across nodes, every block entered c places along it (ring (k, c)), so that
/// rings leave and enter each node through different devices (NCCL's rings across nodes). Cycles
/// beyond the channel count are not planned; rotations repeat every block and are all the same
/// cycle inside one node.
template <typename MakeRing>
Schedule ring_channels(const CollectiveRequest& r, MakeRing make_ring) {
  const int p = static_cast<int>(r.ranks.size()), m = ring_block(r);
  auto cycles = block_cycles(r);
  cycles.resize(std::min<std::size_t>(cycles.size(), static_cast<std::size_t>(r.channels)));
  const int kinds = static_cast<int>(cycles.size());
  const int rotations = m < p ? std::clamp(r.channels / kinds, 1, m) : 1;
  const int rings = kinds * rotations;
  const bool fluid = r.fidelity == config::Fidelity::Fluid;
  const bool own_order = std::is_sorted(cycles.front().begin(), cycles.front().end());
  if (rings == 1 && own_order) return make_ring(p, r.bytes, r.chunk_B, fluid);
  Schedule all(p);
  for (int k = 0; k < kinds; ++k)
    for (int c = 0; c < rotations; ++c) {
      std::vector<int> order;
      order.reserve(static_cast<std::size_t>(p));
      for (int block = 0; block < p / m; ++block)
        for (int j = 0; j < m; ++j) order.push_back(block * m + cycles[k][(j + c) % m]);
      const int lane = k * rotations + c;
      all.alongside(make_ring(p, r.bytes / rings, r.chunk_B, fluid).in_lane(lane, rings).embedded(order, p));
    }
  return all;
}

/// An all-to-all-v's per-pair bytes as they travel: the payload matrix inflated by the protocol's
/// overhead, as `bytes` is for an even all-to-all (bytes / payload_B = 1 / efficiency).
std::vector<std::vector<double>> wire_matrix(const CollectiveRequest& r) {
  auto m = r.matrix;
  const double factor = r.payload_B > 0 ? r.bytes / r.payload_B : 1.0;
  for (auto& row : m)
    for (double& b : row) b *= factor;
  return m;
}

Schedule schedule_for(const CollectiveRequest& r) {
  const int p = static_cast<int>(r.ranks.size());
  const double n = r.bytes;
  const double chunk = r.chunk_B;
  switch (r.algorithm) {
    case CollectiveAlgorithm::Ring:
      switch (r.op) {
        case CollectiveOp::AllReduce: return ring_channels(r, ring_all_reduce_schedule);
        case CollectiveOp::ReduceScatter: return ring_channels(r, ring_reduce_scatter_schedule);
        case CollectiveOp::AllGather: return ring_channels(r, ring_all_gather_schedule);
        case CollectiveOp::Broadcast: return ring_broadcast_schedule(p, r.root, n, chunk);
        case CollectiveOp::Reduce: return ring_reduce_schedule(p, r.root, n, chunk);
        default: break;
      }
      break;
    case CollectiveAlgorithm::Tree:
      switch (r.op) {
        case CollectiveOp::AllReduce:
          return tree_all_reduce_schedule(p, n, chunk, r.ranks_per_node, std::max(1, r.channels / 2));
        case CollectiveOp::Broadcast: return binomial_broadcast_schedule(p, r.root, n);
        case CollectiveOp::Reduce: return binomial_reduce_schedule(p, r.root, n);
        default: break;
      }
      break;
    case CollectiveAlgorithm::HalvingDoubling:
      switch (r.op) {
        case CollectiveOp::AllReduce: return halving_doubling_all_reduce_schedule(p, n);
        case CollectiveOp::ReduceScatter: return halving_reduce_scatter_schedule(p, n);
        case CollectiveOp::AllGather: return doubling_all_gather_schedule(p, n);
        default: break;
      }
      break;
    case CollectiveAlgorithm::Direct:
      switch (r.op) {
        case CollectiveOp::AllReduce: return direct_all_reduce_schedule(p, n);
        case CollectiveOp::ReduceScatter: return direct_reduce_scatter_schedule(p, n);
        case CollectiveOp::AllGather: return direct_all_gather_schedule(p, n);
        case CollectiveOp::AllToAll:
          return r.matrix.empty() ? grouped_all_to_all_schedule(p, n) : grouped_all_to_all_v_schedule(wire_matrix(r));
        case CollectiveOp::Broadcast: return direct_broadcast_schedule(p, r.root, n);
        case CollectiveOp::Reduce: return direct_reduce_schedule(p, r.root, n);
        case CollectiveOp::SendRecv: return sendrecv_schedule(n);
      }
      break;
    case CollectiveAlgorithm::Hierarchical:
      switch (r.op) {
        case CollectiveOp::AllReduce: return hierarchical_all_reduce_schedule(p, r.ranks_per_node, n, chunk);
        case CollectiveOp::ReduceScatter: return hierarchical_reduce_scatter_schedule(p, r.ranks_per_node, n, chunk);
        case CollectiveOp::AllGather: return hierarchical_all_gather_schedule(p, r.ranks_per_node, n, chunk);
        case CollectiveOp::AllToAll:
          return r.matrix.empty()
                     ? hierarchical_all_to_all_schedule(p, r.ranks_per_node, n, r.network_share, r.node_scale)
                     : hierarchical_all_to_all_v_schedule(wire_matrix(r), r.ranks_per_node, r.network_share,
                                                          r.node_scale);
        default: break;
      }
      break;
    case CollectiveAlgorithm::InSwitch:
      if (r.op == CollectiveOp::AllReduce) return in_switch_all_reduce_schedule(p, n, chunk);
      break;
    case CollectiveAlgorithm::NvlsTree:
      if (r.op == CollectiveOp::AllReduce)
        return nvls_tree_all_reduce_schedule(p, r.ranks_per_node, n, chunk, r.tree_scale);
      break;
    case CollectiveAlgorithm::Nccl:
    case CollectiveAlgorithm::Best: break;
  }
  throw Error("unreachable: supports() and schedule_for() disagree");  // supports() is checked first
}

/// Every field of `r` that schedule_for() reads (keep the two together); `matrix` and `payload_B`
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
  const bool rooted = op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce;
  const bool reduce_or_gather =
      op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllGather;
  switch (algorithm) {
    case CollectiveAlgorithm::Nccl:
    case CollectiveAlgorithm::Best: return false;  // resolved to a real algorithm before planning
    case CollectiveAlgorithm::Ring: return reduce_or_gather || rooted;
    case CollectiveAlgorithm::Tree: return op == CollectiveOp::AllReduce || rooted;
    case CollectiveAlgorithm::HalvingDoubling: return reduce_or_gather;
    case CollectiveAlgorithm::Direct: return true;
    case CollectiveAlgorithm::Hierarchical: return reduce_or_gather || op == CollectiveOp::AllToAll;
    case CollectiveAlgorithm::InSwitch:
    case CollectiveAlgorithm::NvlsTree: return op == CollectiveOp::AllReduce;
  }
  return false;
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
  if (!config::is_concrete(request.algorithm))
    throw Error(fmt::format("{}: '{}' must be resolved to an algorithm before planning", what(),
                            config::collective_algorithm_name(request.algorithm)));
  if (!supports(request.op, request.algorithm))
    throw Error(fmt::format("{}: the {} algorithm has no {} (it implements: {})", what(),
                            config::collective_algorithm_name(request.algorithm),
                            config::collective_op_name(request.op), implemented_ops(request.algorithm)));
  LoweredSchedule uncached;
  const LoweredSchedule* lowered = &uncached;
  try {
    check(plan, request);
    const auto make = [&] { return lower_schedule(schedule_for(request), request.fidelity); };
    if (cache != nullptr && request.matrix.empty())
      lowered = &cache->lowered(shape_of(request), make);
    else
      uncached = make();
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", what(), e.what()));
  }
  std::vector<int> with_switches;
  std::span<const int> endpoints = request.ranks;
  if (request.algorithm == CollectiveAlgorithm::InSwitch || request.algorithm == CollectiveAlgorithm::NvlsTree) {
    with_switches = request.ranks;
    if (request.algorithm == CollectiveAlgorithm::InSwitch)
      with_switches.push_back(*request.switch_endpoint);
    else
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
