#pragma once
// Ring algorithms over participants 0 … p-1 in ring order (Patarasuk & Yuan 2009; NCCL's ring).
//  - all_reduce: reduce-scatter then all-gather, 2(p-1) steps of n/p to the successor;
//    time 2(p-1)·α + 2(p-1)/p·n·β.
//  - reduce_scatter, all_gather (n = total): p-1 steps of n/p; time (p-1)·α + (p-1)/p·n·β.
//  - broadcast, reduce: a chain from (to) the root, pipelined in chunks; with k chunks of c = n/k,
//    time (p-2+k)·(α + c·β).
// Chunking (chunk_B > 0 and the step message n/p > chunk_B): the buffer is worked in k loops of
// p chunks, NCCL-style; step s of loop l runs in round l + s, so loops follow each other one
// round apart and a round carries every loop then in flight. Time (S + k - 1)·α + the same
// bandwidth term, S the steps of one loop.
#include "collectives/Schedule.hpp"

namespace clearfog::collectives {

// compact: one message per member carrying all its steps, with the round count kept — enough for
// the fluid plan, and O(p) instead of O(p^2) to build.
Schedule ring_all_reduce_schedule(int p, double bytes, double chunk_B = 0, bool compact = false);
Schedule ring_reduce_scatter_schedule(int p, double bytes, double chunk_B = 0, bool compact = false);
Schedule ring_all_gather_schedule(int p, double bytes, double chunk_B = 0, bool compact = false);
Schedule ring_broadcast_schedule(int p, int root, double bytes, double chunk_B = 0);
Schedule ring_reduce_schedule(int p, int root, double bytes, double chunk_B = 0);

class CollectiveAlgorithmType;
/// The ring: NCCL's Ring, its channels spread over the ring family of the node's links.
const CollectiveAlgorithmType& ring_algorithm();

}  // namespace clearfog::collectives
