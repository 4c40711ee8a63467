#pragma once
// Hierarchical algorithms for p = q nodes x m members per node, members node-major (the m
// consecutive participants g·m … g·m+m-1 share node g).
//  - all_reduce: ring reduce-scatter inside each node (each member ends with n/m), ring
//    all-reduce of each n/m shard across the q members with the same local index, ring
//    all-gather inside each node. Time 2(m-1)·α + 2(m-1)/m·n·β + 2(q-1)·α + 2(q-1)/(q·m)·n·β:
//    the slow inter-node links carry 1/m of what a flat ring puts on them.
//  - reduce_scatter (n = total): intra-node ring reduce-scatter, then inter-node ring
//    reduce-scatter of the n/m shard; all_gather: the reverse (inter-node, then intra-node).
// Throws clearfog::Error unless m >= 1 divides p.
#include "collectives/Schedule.hpp"

namespace clearfog::collectives {

Schedule hierarchical_all_reduce_schedule(int p, int per_node, double bytes, double chunk_B = 0);
Schedule hierarchical_reduce_scatter_schedule(int p, int per_node, double bytes, double chunk_B = 0);
Schedule hierarchical_all_gather_schedule(int p, int per_node, double bytes, double chunk_B = 0);

class CollectiveAlgorithmType;
/// Inside nodes, then across them, then inside again (all-to-all: HierarchicalAllToAll.hpp).
const CollectiveAlgorithmType& hierarchical_algorithm();

}  // namespace clearfog::collectives
