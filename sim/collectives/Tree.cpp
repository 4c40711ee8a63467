#include "collectives/Tree.hpp"

#include <algorithm>
#include <cmath>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/NcclSteps.hpp"

namespace clearfog::collectives {
namespace {

/// NCCL's binary tree (src/graph/trees.cc, ncclGetBtree): rank 0 is the root with one child, the
/// largest power of two below p; rank r hangs from the rank above its lowest set bit.
int btree_parent(int p, int rank) {
  if (rank == 0) return -1;
  int bit = 1;
  while (!(bit & rank)) bit <<= 1;
  const int up = (rank ^ bit) | (bit << 1);
  return up < p ? up : (rank ^ bit);
}

std::vector<std::vector<int>> children_of(const std::vector<int>& parents) {
  std::vector<std::vector<int>> children(parents.size());
  for (std::size_t v = 0; v < parents.size(); ++v)
    if (parents[v] >= 0) children[parents[v]].push_back(static_cast<int>(v));
  return children;
}

/// Height of each member above its deepest descendant (leaves 0).
void heights(const std::vector<std::vector<int>>& children, int v, std::vector<int>& height) {
  height[v] = 0;
  for (int c : children[v]) {
    heights(children, c, height);
    height[v] = std::max(height[v], height[c] + 1);
  }
}

void depths(const std::vector<std::vector<int>>& children, int v, int depth, std::vector<int>& out) {
  out[v] = depth;
  for (int c : children[v]) depths(children, c, depth + 1, out);
}

int root_of(const std::vector<int>& parents) {
  return static_cast<int>(std::find(parents.begin(), parents.end(), -1) - parents.begin());
}

}  // namespace

Schedule tree_reduce_broadcast_schedule(const std::vector<int>& parents, double bytes, double chunk_B, int lane) {
  const int p = static_cast<int>(parents.size());
  Schedule s(p);
  const auto children = children_of(parents);
  const int root = root_of(parents);
  std::vector<int> height(p), depth(p);
  heights(children, root, height);
  depths(children, root, 0, depth);
  const int chunks = chunk_count(bytes, chunk_B);
  const double chunk = bytes / chunks;
  for (int j = 0; j < chunks; ++j) {
    // Up: a member forwards chunk j once every child's part of it has arrived.
    for (int v = 0; v < p; ++v)
      if (parents[v] >= 0) s.send(v, parents[v], chunk, j + height[v], lane);
    // Down: the root has the reduced chunk j after round j + height[root] - 1.
    for (int v = 0; v < p; ++v)
      if (parents[v] >= 0) s.send(parents[v], v, chunk, j + height[root] + depth[v] - 1, lane);
  }
  return s;
}

std::vector<int> double_binary_tree_parents(int p, bool second) {
  std::vector<int> parents(p);
  for (int r = 0; r < p; ++r) {
    if (!second) {
      parents[r] = btree_parent(p, r);
    } else if (p % 2 == 1) {  // shift by one, as NCCL's ncclGetDtree does for odd p
      const int up = btree_parent(p, (r - 1 + p) % p);
      parents[r] = up < 0 ? -1 : (up + 1) % p;
    } else {  // mirror: leaves of the first tree (odd ranks) become inner nodes
      const int up = btree_parent(p, p - 1 - r);
      parents[r] = up < 0 ? -1 : p - 1 - up;
    }
  }
  return parents;
}

int tree_depth(const std::vector<int>& parents) {
  if (parents.empty()) return 0;
  std::vector<int> depth(parents.size());
  depths(children_of(parents), root_of(parents), 0, depth);
  return *std::max_element(depth.begin(), depth.end());
}

std::vector<int> nccl_tree_parents(int p, int per_node, bool second) {
  const int q = p / per_node;
  const std::vector<int> across = double_binary_tree_parents(q, second);
  // Each node is a chain; the second tree runs it the other way, so that its head differs.
  const int head = second ? per_node - 1 : 0;
  std::vector<int> parents(p);
  for (int n = 0; n < q; ++n)
    for (int j = 0; j < per_node; ++j) {
      const int me = n * per_node + j;
      if (j != head) parents[me] = n * per_node + (second ? j + 1 : j - 1);
      else parents[me] = across[n] < 0 ? -1 : across[n] * per_node + head;
    }
  return parents;
}

Schedule tree_all_reduce_schedule(int p, double bytes, double chunk_B, int per_node, int rotations) {
  Schedule s(p);
  if (p < 2) return s;
  const bool nodes = per_node > 0 && p % per_node == 0;
  const auto first = nodes ? nccl_tree_parents(p, per_node, false) : double_binary_tree_parents(p, false);
  const auto second = nodes ? nccl_tree_parents(p, per_node, true) : double_binary_tree_parents(p, true);
  // Rotation c renames local member j of every node (j + c) mod per_node, so that its trees enter
  // and leave the nodes through other members (and their NICs), as NCCL's channels do.
  const int r = nodes && per_node < p ? std::clamp(rotations, 1, per_node) : 1;
  for (int c = 0; c < r; ++c) {
    std::vector<int> order(p);
    for (int v = 0; v < p; ++v) order[v] = nodes ? v / per_node * per_node + (v % per_node + c) % per_node : v;
    // The trees are separate flows (NCCL runs them on separate channels): a pair that is an edge of
    // both keeps two transfers in the fluid plan, so that every flow of a link has the same size and
    // max-min sharing keeps the busiest links full to the end.
    s.alongside(tree_reduce_broadcast_schedule(first, bytes / 2 / r, chunk_B / r, 2 * c).embedded(order, p));
    s.alongside(tree_reduce_broadcast_schedule(second, bytes / 2 / r, chunk_B / r, 2 * c + 1).embedded(order, p));
  }
  return s;
}

Schedule binomial_broadcast_schedule(int p, int root, double bytes) {
  // Round r: members with relative rank below 2^r pass the buffer 2^r further.
  Schedule s(p);
  int round = 0;
  for (int span = 1; span < p; span <<= 1, ++round)
    for (int v = 0; v < span && v + span < p; ++v) s.send((root + v) % p, (root + v + span) % p, bytes, round);
  return s;
}

Schedule binomial_reduce_schedule(int p, int root, double bytes) {
  // The broadcast run backwards: the widest spans first, towards the root.
  const Schedule forward = binomial_broadcast_schedule(p, root, bytes);
  Schedule s(p);
  for (const Message& m : forward.messages()) s.send(m.to, m.from, m.bytes, forward.rounds() - 1 - m.round);
  return s;
}

namespace {

using config::CollectiveOp;
using config::Protocol;

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

class TreeAlgorithm final : public CollectiveAlgorithmType {
public:
  std::string_view name() const override { return "tree"; }
  std::string_view summary() const override {
    return "NCCL's tree (chains in nodes, double binary tree across; binomial trees for broadcast and reduce)";
  }
  int version() const override { return 1; }
  bool implements(CollectiveOp op) const override { return op == CollectiveOp::AllReduce || config::is_rooted(op); }
  std::optional<NcclAlgorithm> nccl_counterpart() const override { return NcclAlgorithm::Tree; }
  /// The all-reduce pipelines NCCL's tree chunks, each tree on half the channels; the binomial
  /// trees move whole buffers.
  std::optional<double> pipeline_chunk_B(CollectiveOp op, const ChunkContext& c) const override {
    if (op != CollectiveOp::AllReduce) return 0.0;
    const int p = c.members, m = c.ranks_per_node;
    const int depth = tree_depth(m > 0 ? nccl_tree_parents(p, m, false) : double_binary_tree_parents(p, false));
    const int nodes = m > 0 ? p / m : 1;
    const double ppn = static_cast<double>(p) / nodes;
    return std::max(1, c.channels / 2) * tree_chunk_B(c.protocol, c.bytes, c.channels, depth, nodes, ppn);
  }
  bool pipelined(CollectiveOp op) const override { return op == CollectiveOp::AllReduce; }
  Schedule schedule(const CollectiveRequest& r) const override {
    const int p = static_cast<int>(r.ranks.size());
    if (r.op == CollectiveOp::AllReduce)
      return tree_all_reduce_schedule(p, r.bytes, r.chunk_B, r.ranks_per_node, std::max(1, r.channels / 2));
    if (r.op == CollectiveOp::Broadcast) return binomial_broadcast_schedule(p, r.root, r.bytes);
    return binomial_reduce_schedule(p, r.root, r.bytes);
  }
};

}  // namespace

const CollectiveAlgorithmType& tree_algorithm() {
  static const TreeAlgorithm tree;
  return tree;
}

}  // namespace clearfog::collectives
