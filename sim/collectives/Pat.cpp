#include "collectives/Pat.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/NcclSteps.hpp"

namespace clearfog::collectives {
namespace {

using config::CollectiveOp;

int ceil_log2(int p) {
  int d = 0;
  while ((1 << d) < p) ++d;
  return d;
}

/// The blocks the gather's round k carries (k = 0: the farthest peer): 2^k at power-of-two p, the
/// same shares of the p - 1 blocks otherwise.
double gathered_blocks(int p, int rounds, int k) {
  return std::ldexp(1.0, k) * (p - 1) / (std::ldexp(1.0, rounds) - 1);
}

/// The most blocks one round moves: 8 slots of F blocks each, F = blocks of `piece` in a chunk
/// (a power of two; unbounded without chunking), capped at the power of two >= floor(p/2).
double aggregation(int p, double piece, double chunk_B) {
  double cap = 1;
  while (cap < p / 2) cap *= 2;
  if (!(chunk_B > 0)) return cap;
  double f = 1;
  while (2 * f * piece <= chunk_B) f *= 2;
  return std::min(static_cast<double>(kNcclSteps) * f, cap);
}

Schedule pat_schedule(int p, double bytes, double chunk_B, bool gather) {
  Schedule s(p);
  if (p < 2) return s;
  const int rounds = ceil_log2(p);
  const double block = bytes / p;
  const int loops = chunk_count(block, chunk_B);
  const double piece = block / loops;
  const double most = aggregation(p, piece, chunk_B);
  int round = 0;
  for (int loop = 0; loop < loops; ++loop)
    for (int k = 0; k < rounds; ++k) {
      // The gather goes far first (distance p/2 … 1), the reduce-scatter near first.
      const int distance = 1 << (gather ? rounds - 1 - k : k);
      const double blocks = gathered_blocks(p, rounds, gather ? k : rounds - 1 - k);
      const int splits = static_cast<int>(std::ceil(blocks / most - 1e-9));
      for (int j = 0; j < splits; ++j)
        for (int r = 0; r < p; ++r)
          s.send(r, gather ? (r - distance + p) % p : (r + distance) % p, blocks * piece / splits, round + j);
      round += splits;
    }
  return s;
}

class PatAlgorithm final : public CollectiveAlgorithmType {
public:
  std::string_view name() const override { return "pat"; }
  std::string_view summary() const override {
    return "NCCL's PAT, log2(p) rounds for all-gather and reduce-scatter (one member per node)";
  }
  int version() const override { return 1; }
  bool implements(CollectiveOp op) const override {
    return op == CollectiveOp::AllGather || op == CollectiveOp::ReduceScatter;
  }
  /// NCCL enables PAT for communicators of one GPU per node only (src/graph/tuning.cc).
  std::optional<std::string> refusal(CollectiveOp /*op*/, const GroupShape& g) const override {
    if (g.spans_nodes == false) return "it runs one member per node, and the group is on one node";
    if (g.ranks_per_node && *g.ranks_per_node != 1)
      return fmt::format("it runs one member per node, and the group has {}",
                         *g.ranks_per_node == 0 ? std::string("uneven runs") : fmt::format("{} per node", *g.ranks_per_node));
    return std::nullopt;
  }
  bool runs_protocol(config::Protocol p) const override { return p == config::Protocol::Simple; }
  /// NCCL's PAT chunk (src/enqueue.cc): a Simple step, halved down to 64 KiB while 32 (all-gather)
  /// or 16 (reduce-scatter) chunks would exceed a channel's share of the buffer; per channel.
  std::optional<double> pipeline_chunk_B(CollectiveOp op, const ChunkContext& c) const override {
    const int channels = std::max(1, c.channels);
    const double per_channel_B = c.bytes / channels;
    const double factor = op == CollectiveOp::AllGather ? 32 : 16;
    double chunk = kSimpleStep_B;
    while (chunk * factor > per_channel_B && chunk > 65536) chunk /= 2;
    return chunk * channels;
  }
  Schedule schedule(const CollectiveRequest& r) const override {
    const int p = static_cast<int>(r.ranks.size());
    return pat_schedule(p, r.bytes, r.chunk_B, r.op == CollectiveOp::AllGather);
  }
};

}  // namespace

Schedule pat_all_gather_schedule(int p, double bytes, double chunk_B) { return pat_schedule(p, bytes, chunk_B, true); }

Schedule pat_reduce_scatter_schedule(int p, double bytes, double chunk_B) {
  return pat_schedule(p, bytes, chunk_B, false);
}

const CollectiveAlgorithmType& pat_algorithm() {
  static const PatAlgorithm pat;
  return pat;
}

}  // namespace clearfog::collectives
