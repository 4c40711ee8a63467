#include "collectives/Ring.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/NcclSteps.hpp"
#include "core/Errors.hpp"

namespace clearfog::collectives {
namespace {

/// `steps` steps in which every member sends `step_bytes` to its successor, worked in loops of
/// chunks when chunking applies (see Ring.hpp).
Schedule ring_steps(int p, int steps, double step_bytes, double chunk_B, bool compact) {
  Schedule s(p);
  if (p < 2) return s;
  const int loops = chunk_count(step_bytes, chunk_B);
  if (compact) {
    // The fluid plan needs only what each member sends its successor in total and how many
    // rounds that takes: O(p) messages instead of O(p * steps * loops).
    for (int i = 0; i < p; ++i) s.send(i, (i + 1) % p, steps * step_bytes, 0);
    s.stretch_to(loops - 1 + steps);
    return s;
  }
  const double chunk = step_bytes / loops;
  for (int loop = 0; loop < loops; ++loop)
    for (int step = 0; step < steps; ++step)
      for (int i = 0; i < p; ++i) s.send(i, (i + 1) % p, chunk, loop + step);
  return s;
}

/// Chunks of `bytes` flowing along chain[0] -> chain[1] -> … : chunk j crosses hop h in round j + h.
Schedule chain(int p, const std::vector<int>& order, double bytes, double chunk_B) {
  Schedule s(p);
  if (p < 2) return s;
  const int chunks = chunk_count(bytes, chunk_B);
  const double chunk = bytes / chunks;
  for (int j = 0; j < chunks; ++j)
    for (int hop = 0; hop + 1 < p; ++hop) s.send(order[hop], order[hop + 1], chunk, j + hop);
  return s;
}

}  // namespace

Schedule ring_all_reduce_schedule(int p, double bytes, double chunk_B, bool compact) {
  return ring_steps(p, 2 * (p - 1), bytes / std::max(p, 1), chunk_B, compact);
}

Schedule ring_reduce_scatter_schedule(int p, double bytes, double chunk_B, bool compact) {
  return ring_steps(p, p - 1, bytes / std::max(p, 1), chunk_B, compact);
}

Schedule ring_all_gather_schedule(int p, double bytes, double chunk_B, bool compact) {
  return ring_steps(p, p - 1, bytes / std::max(p, 1), chunk_B, compact);
}

Schedule ring_broadcast_schedule(int p, int root, double bytes, double chunk_B) {
  std::vector<int> order(p);
  for (int h = 0; h < p; ++h) order[h] = (root + h) % p;  // from the root along the ring
  return chain(p, order, bytes, chunk_B);
}

Schedule ring_reduce_schedule(int p, int root, double bytes, double chunk_B) {
  std::vector<int> order(p);
  for (int h = 0; h < p; ++h) order[h] = (root + 1 + h) % p;  // from the root's successor, ending at the root
  return chain(p, order, bytes, chunk_B);
}

namespace {

using config::CollectiveOp;

/// Members per block a ring visits before leaving it: ranks_per_node across several nodes, else all.
int ring_block(const CollectiveRequest& r) {
  const int p = static_cast<int>(r.ranks.size()), m = r.ranks_per_node;
  return m > 0 && m < p && p % m == 0 ? m : p;
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

class RingAlgorithm final : public CollectiveAlgorithmType {
public:
  std::string_view name() const override { return "ring"; }
  std::string_view summary() const override { return "ring in the topology's ring order"; }
  int version() const override { return 1; }
  bool implements(CollectiveOp op) const override { return config::is_reduce_or_gather(op) || config::is_rooted(op); }
  std::optional<NcclAlgorithm> nccl_counterpart() const override { return NcclAlgorithm::Ring; }
  /// Rooted rings pipeline NCCL's steps over their channels; reductions and gathers keep the
  /// calibrated chunk.
  std::optional<double> pipeline_chunk_B(CollectiveOp op, const ChunkContext& c) const override {
    if (config::is_rooted(op)) return c.channels * step_B(c.protocol);
    return std::nullopt;
  }
  bool pipelined(CollectiveOp op) const override { return config::is_rooted(op); }
  bool follows_ring_family(CollectiveOp op) const override { return config::is_reduce_or_gather(op); }

  /// Each cycle of the ring family is an order of one block's positions.
  void check(const program::Plan& /*plan*/, const CollectiveRequest& r) const override {
    const int m = ring_block(r);
    for (const auto& ring : r.rings) {
      std::vector<int> sorted = ring;
      std::sort(sorted.begin(), sorted.end());
      if (static_cast<int>(sorted.size()) != m || sorted.front() != 0 || sorted.back() != m - 1 ||
          std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        throw Error(fmt::format("a ring of its family is not an order of a block's {} members", m));
    }
  }

  Schedule schedule(const CollectiveRequest& r) const override {
    const int p = static_cast<int>(r.ranks.size());
    switch (r.op) {
      case CollectiveOp::AllReduce: return ring_channels(r, ring_all_reduce_schedule);
      case CollectiveOp::ReduceScatter: return ring_channels(r, ring_reduce_scatter_schedule);
      case CollectiveOp::AllGather: return ring_channels(r, ring_all_gather_schedule);
      case CollectiveOp::Broadcast: return ring_broadcast_schedule(p, r.root, r.bytes, r.chunk_B);
      default: return ring_reduce_schedule(p, r.root, r.bytes, r.chunk_B);
    }
  }
};

}  // namespace

const CollectiveAlgorithmType& ring_algorithm() {
  static const RingAlgorithm ring;
  return ring;
}

}  // namespace clearfog::collectives
