#pragma once
// NCCL's NVLSTree all-reduce (NCCL 2.18+, src/device/all_reduce.h runTreeSplit with NVLS): inside
// each node the NVSwitch reduces, across nodes a double binary tree joins the nodes, each member of
// a node the head of 1/m of the buffer. Participants 0 … p-1 are the members (nodes of `per_node`
// consecutive ones), p + g the reducing switch of node g. Chunk j of c = n/k, pipelined:
//  - round j: every member sends chunk j up to its node's switch;
//  - round j+1: the switch sends member l the reduced shard l of the chunk (c/m);
//  - rounds j+2 … j+1+2D: for each l, the members l of all nodes all-reduce their shards over the
//    double binary tree of the nodes (two trees of c/2m, depth D = ceil(log2 nodes));
//  - round j+2+2D: each member sends its shard up; round j+3+2D: the switch sends the chunk down.
// k + 3 + 2D rounds. A member's link carries c + c/m each way per chunk, its NIC 2·c/m (reduce up
// and broadcast down of its shard), against a ring's 2(p-1)/p·c through the NIC: the reduction in the
// switch takes the node's other members off the fabric.
#include "collectives/Schedule.hpp"

namespace clearfog::collectives {

/// `tree_scale`: bytes on the tree per byte through the switches (their protocols' efficiencies differ).
Schedule nvls_tree_all_reduce_schedule(int p, int per_node, double bytes, double chunk_B = 0, double tree_scale = 1);

class CollectiveAlgorithmType;
/// NCCL's NVLSTree: each node's switch reduces, a double binary tree joins the nodes.
const CollectiveAlgorithmType& nvls_tree_algorithm();

}  // namespace clearfog::collectives
