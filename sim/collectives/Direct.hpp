#pragma once
// Direct algorithms: members talk to each other without intermediaries (participants 0 … p-1).
//  - all_to_all, pairwise exchange: p-1 rounds; in round s member i sends n/p to (i+s) mod p and
//    receives from (i-s) mod p; time (p-1)·α + (p-1)/p·n·β on a full-bisection network.
//  - all_gather / reduce_scatter (n = total): one round in which every member sends n/p to every
//    other; all_reduce: that reduce_scatter then that all_gather. Time α + (p-1)/p·n·β per phase
//    where the injection link is the bottleneck.
//  - broadcast / reduce: the root sends n to (receives n from) everyone in one round; time
//    α + (p-1)·n·β through the root's link.
//  - sendrecv: ranks = {src, dst}, one message of n; time α + n·β.
#include "collectives/Schedule.hpp"

namespace clearfog::collectives {

Schedule pairwise_all_to_all_schedule(int p, double bytes);
/// All-to-all-v: member i sends matrix[i][j] bytes to member j, in the pairwise order (step k:
/// i -> i + k); pairs with nothing to send post no message (NCCL skips zero-size sends).
Schedule pairwise_all_to_all_v_schedule(const std::vector<std::vector<double>>& matrix);
Schedule direct_all_gather_schedule(int p, double bytes);
Schedule direct_reduce_scatter_schedule(int p, double bytes);
Schedule direct_all_reduce_schedule(int p, double bytes);
Schedule direct_broadcast_schedule(int p, int root, double bytes);
Schedule direct_reduce_schedule(int p, int root, double bytes);
Schedule sendrecv_schedule(double bytes);

}  // namespace clearfog::collectives
