#pragma once
// Direct algorithms: members talk to each other without intermediaries (participants 0 … p-1).
//  - all_to_all as NCCL runs it (a group of sends and receives, src/enqueue.cc): one round in
//    which every member sends n/p to every other at once; time α + (p-1)/p·n·β where the
//    member's link is the bottleneck. Across N nodes the n·(N-1)/N a member sends off its node
//    share its NIC while the rest crosses NVLink, so busbw tends to N/(N-1) NICs (nccl-tests
//    issues #130, #267). The pairwise exchange (p-1 rounds, round s from i to (i+s) mod p:
//    (p-1)·α + (p-1)/p·n·β) is kept as a schedule of its own.
//  - all_gather / reduce_scatter (n = total): one round in which every member sends n/p to every
//    other; all_reduce: that reduce_scatter then that all_gather. Time α + (p-1)/p·n·β per phase
//    where the injection link is the bottleneck.
//  - broadcast / reduce: the root sends n to (receives n from) everyone in one round; time
//    α + (p-1)·n·β through the root's link.
//  - sendrecv: ranks = {src, dst}, one message of n; time α + n·β.
#include "collectives/Schedule.hpp"

namespace clearfog::collectives {

Schedule grouped_all_to_all_schedule(int p, double bytes);
Schedule pairwise_all_to_all_schedule(int p, double bytes);
/// All-to-all-v as NCCL runs it (one group of sends and receives): member i sends matrix[i][j]
/// bytes to member j, all pairs at once; pairs with nothing to send post no message.
Schedule grouped_all_to_all_v_schedule(const std::vector<std::vector<double>>& matrix);
Schedule direct_all_gather_schedule(int p, double bytes);
Schedule direct_reduce_scatter_schedule(int p, double bytes);
Schedule direct_all_reduce_schedule(int p, double bytes);
Schedule direct_broadcast_schedule(int p, int root, double bytes);
Schedule direct_reduce_schedule(int p, int root, double bytes);
Schedule sendrecv_schedule(double bytes);

class CollectiveAlgorithmType;
/// Direct (pairwise) exchange: every operation, point-to-point ones included.
const CollectiveAlgorithmType& direct_algorithm();

}  // namespace clearfog::collectives
