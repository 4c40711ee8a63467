#include "collectives/NvlsTree.hpp"

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

}  // namespace clearfog::collectives
