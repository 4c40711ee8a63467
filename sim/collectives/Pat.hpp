#pragma once
// NCCL's PAT ("Parallel Aggregated Trees", NCCL 2.23+, src/device/prims_simple.h and
// src/include/collectives.h): all-gather and reduce-scatter in log2(p) rounds for groups of one
// member per node, where a ring's p - 1 latencies dominate. Participants 0 … p-1 in ring order,
// n the total (p blocks of S = n/p), D = ceil(log2 p):
//  - all_gather, far first: in round k = 0 … D-1, member r sends to r - 2^(D-1-k) (mod p) the
//    2^k blocks it has gathered that the peer lacks (one block at distance p/2, half the buffer at
//    distance 1): a reversed Bruck;
//  - reduce_scatter, the mirror: in round k member r sends to r + 2^k the 2^(D-1-k) partial sums
//    the peer reduces further (half the buffer at distance 1 first).
// Each member sends (p-1)/p·n, as a ring does, in D rounds instead of p - 1: time
// D·α + (p-1)/p·n·β. Two limits of NCCL's bounded buffer are kept:
//  - a block larger than the pipeline chunk C is worked in L = ceil(S / C) loops, one after the
//    other (NCCL runs successive chunks nearly serialised);
//  - a round moves at most A blocks, A = min(8·F, 2^ceil(log2 floor(p/2))) with F the blocks one
//    512 KiB slot holds (a power of two, at least 1) and 8 the slots of a connection: a round of
//    b > A blocks becomes ceil(b / A) rounds.
// For p not a power of two, NCCL walks the next power of two and skips the missing peers; here
// each round carries its power-of-two share of the p - 1 blocks (the total is exact, the split
// approximate). Sources and the comparison with NCCL's own step generator: docs/collectives.md.
#include "collectives/Schedule.hpp"

namespace clearfog::collectives {

/// `chunk_B`: the pipeline chunk C per block (0: one loop). `chunk_B` and `bytes` are totals over
/// the channels, which NCCL runs as independent copies.
Schedule pat_all_gather_schedule(int p, double bytes, double chunk_B = 0);
Schedule pat_reduce_scatter_schedule(int p, double bytes, double chunk_B = 0);

class CollectiveAlgorithmType;
/// NCCL's PAT for all-gather and reduce-scatter, one member per node.
const CollectiveAlgorithmType& pat_algorithm();

}  // namespace clearfog::collectives
