#pragma once
// Tree algorithms over participants 0 … p-1.
//  - all_reduce: NCCL's double binary tree (Sanders, Speck & Träff 2009; NCCL 2.4). Two binary
//    trees, the second the first mirrored (even p) or shifted by one (odd p), so that a member is
//    an inner node in at most one; each carries half the buffer in k chunks of c = n/(2k), reduced
//    up and broadcast down at once: chunk j leaves a node of height u for its parent in round
//    j + u and reaches depth d in round j + U + d - 1 (U, the root's height). 2·D + k - 1 rounds
//    for trees of depth D; per round a member moves at most 4 chunks (inner node in one tree:
//    1 up, 2 down; leaf in the other: 1 up), so time ≈ (2·D + k - 1)·α + 2·n·β for large k.
//    With members in nodes of m (per_node > 0), NCCL's shape (src/graph/trees.cc, connect.cc):
//    the members of a node form a chain, the double binary tree joins the nodes' heads; the second
//    tree runs every chain the other way (head m-1 instead of 0). Depth m - 1 + D(nodes).
//    Channels: across nodes each pair of trees is run once per rotation of the nodes' members.
//  - broadcast, reduce: binomial tree, ceil(log2 p) rounds of n; time ceil(log2 p)·(α + n·β).
#include <vector>

#include "collectives/Schedule.hpp"

namespace clearfog::collectives {

/// Parent of each member in the two trees (-1 at a root); `second` picks the mirrored/shifted tree.
std::vector<int> double_binary_tree_parents(int p, bool second);
/// Edges from the root to the deepest member of a tree given by its parents.
int tree_depth(const std::vector<int>& parents);

/// One tree's pipelined reduce-then-broadcast of `bytes` in chunks of chunk_B over the members whose
/// parents are given (-1 at the root), its flows in `lane` (see above for the rounds).
Schedule tree_reduce_broadcast_schedule(const std::vector<int>& parents, double bytes, double chunk_B, int lane);

/// NCCL's trees over nodes of `per_node` consecutive members (see above).
std::vector<int> nccl_tree_parents(int p, int per_node, bool second);

/// per_node 0: one double binary tree over all members; else NCCL's chains and node tree, run in
/// `rotations` copies (at most per_node) side by side, copy c with every node's members rotated by
/// c, each carrying 1/rotations of the buffer in chunks of chunk_B/rotations: NCCL's tree channels,
/// which enter every node through different GPUs and NICs.
Schedule tree_all_reduce_schedule(int p, double bytes, double chunk_B = 0, int per_node = 0, int rotations = 1);
Schedule binomial_broadcast_schedule(int p, int root, double bytes);
Schedule binomial_reduce_schedule(int p, int root, double bytes);

class CollectiveAlgorithmType;
/// NCCL's Tree for the all-reduce, binomial trees for broadcast and reduce.
const CollectiveAlgorithmType& tree_algorithm();

}  // namespace clearfog::collectives
