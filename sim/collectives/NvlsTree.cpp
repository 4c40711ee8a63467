#include "collectives/NvlsTree.hpp"

#include <algorithm>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/NcclSteps.hpp"

#include <fmt/format.h>

#include <cmath>

#include "collectives/Tree.hpp"
#include "core/Errors.hpp"

namespace clearfog::collectives {

Schedule nvls_tree_all_reduce_schedule(int p, int per_node, double bytes, double chunk_B, double tree_scale) {
  if (per_node < 1 || p % per_node != 0)
    throw Error(fmt::format("nvls-tree needs members in nodes of equal size, got {} members, {} per node", p, per_node));
  const int m = per_node;
  const int q = p / m;
  Schedule s(p + q);
  if (p < 2) return s;
  const int chunks = chunk_count(bytes, chunk_B);
  const double c = bytes / chunks;
  const auto first = double_binary_tree_parents(q, false);
  const auto second = double_binary_tree_parents(q, true);
  // The shard all-reduce of one chunk across the nodes: both trees of local index l, side by side.
  Schedule across(p + q);
  for (int l = 0; l < m; ++l) {
    std::vector<int> heads(q);
    for (int g = 0; g < q; ++g) heads[g] = g * m + l;
    const double shard = c / m / 2 * tree_scale;
    across.alongside(tree_reduce_broadcast_schedule(first, shard, 0, 2 * l).embedded(heads, p + q));
    across.alongside(tree_reduce_broadcast_schedule(second, shard, 0, 2 * l + 1).embedded(heads, p + q));
  }
  const int tree_rounds = across.rounds();
  for (int j = 0; j < chunks; ++j) {
    for (int i = 0; i < p; ++i) {
      const int sw = p + i / m;
      s.send(i, sw, c, j);
      s.send(sw, i, c / m, j + 1);
      s.send(i, sw, c / m, j + 2 + tree_rounds);
      s.send(sw, i, c, j + 3 + tree_rounds);
    }
    if (q > 1) s.alongside(across, j + 2);
  }
  return s;
}


namespace {

/// What NVLSTree moves per pipeline round (src/enqueue.cc computeColl): the Simple step of 512 KiB
/// cut to 256, 128, 64 and 32 KiB below 32, 16, 4 and 1 loops.
double nvls_tree_loop_B(double bytes, int channels, int heads) {
  const double ops = static_cast<double>(std::max(1, channels)) * std::max(1, heads);
  double chunk = kSimpleStep_B;
  if (bytes < 32 * ops * chunk && chunk > 262144) chunk = 262144;
  if (bytes < 16 * ops * chunk && chunk > 131072) chunk = 131072;
  if (bytes < 4 * ops * chunk && chunk > 65536) chunk = 65536;
  if (bytes < 1 * ops * chunk && chunk > 32768) chunk = 32768;
  return ops * chunk;
}

class NvlsTreeAlgorithm final : public CollectiveAlgorithmType {
public:
  std::string_view name() const override { return "nvls-tree"; }
  std::string_view summary() const override {
    return "the switch reduces in each node, a tree joins the nodes (needs both)";
  }
  int version() const override { return 1; }
  bool implements(config::CollectiveOp op) const override { return op == config::CollectiveOp::AllReduce; }
  std::optional<std::string> refusal(config::CollectiveOp /*op*/, const GroupShape& g) const override {
    if (g.reducing_switch == false)
      return "it reduces in each node's switch, and the nodes have no switch that reduces (node.in_switch_reduction: "
             "false)";
    if (g.spans_nodes == false) return "it joins nodes by a tree, and the group is on one node";
    if (g.ranks_per_node && *g.ranks_per_node < 2)
      return "it needs two members at least on each node, in equal runs of consecutive members";
    return std::nullopt;
  }
  std::optional<NcclAlgorithm> nccl_counterpart() const override { return NcclAlgorithm::NvlsTree; }
  std::optional<double> pipeline_chunk_B(config::CollectiveOp /*op*/, const ChunkContext& c) const override {
    return nvls_tree_loop_B(c.bytes, c.channels, std::max(1, c.ranks_per_node));
  }
  bool pipelined(config::CollectiveOp /*op*/) const override { return true; }
  bool reduces_in_switch() const override { return true; }
  void check(const program::Plan& /*plan*/, const CollectiveRequest& r) const override {
    const int p = static_cast<int>(r.ranks.size());
    if (r.ranks_per_node < 1 || p % r.ranks_per_node != 0 ||
        static_cast<int>(r.switch_endpoints.size()) != p / r.ranks_per_node)
      throw Error(fmt::format("needs members in nodes of ranks_per_node and one reducing switch per node, got {} "
                              "members, {} per node, {} switches",
                              p, r.ranks_per_node, r.switch_endpoints.size()));
  }
  Schedule schedule(const CollectiveRequest& r) const override {
    return nvls_tree_all_reduce_schedule(static_cast<int>(r.ranks.size()), r.ranks_per_node, r.bytes, r.chunk_B,
                                         r.tree_scale);
  }
};

}  // namespace

const CollectiveAlgorithmType& nvls_tree_algorithm() {
  static const NvlsTreeAlgorithm algorithm;
  return algorithm;
}

}  // namespace clearfog::collectives
