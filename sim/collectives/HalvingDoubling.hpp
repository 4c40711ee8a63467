#pragma once
// Recursive halving and doubling (Thakur, Rabenseifner & Gropp 2005), participants 0 … p-1.
//  - reduce_scatter, recursive halving (p a power of two): in round r members i and
//    i xor p/2^(r+1) swap halves of what they still hold: n/2^(r+1) each; time
//    log2(p)·α + (p-1)/p·n·β.
//  - all_gather, recursive doubling (p a power of two): round r pairs i with i xor 2^r and doubles
//    what each holds, n/p·2^r; same time.
//  - all_reduce (Rabenseifner): the two above, 2·log2(p)·α + 2(p-1)/p·n·β. For other p the
//    r = p - 2^floor(log2 p) extra members are folded (Thakur et al. §4.4): the first 2r members
//    pair up, the even one sends its whole buffer to the odd one before and receives the result
//    after, adding 2·(α + n·β). reduce_scatter and all_gather reject p that is not a power of two
//    (folding would leave the folded members' shares unplaced).
#include "collectives/Schedule.hpp"

namespace clearfog::collectives {

bool is_power_of_two(int p);

/// Throws clearfog::Error unless p is a power of two.
Schedule halving_reduce_scatter_schedule(int p, double bytes);
/// Throws clearfog::Error unless p is a power of two.
Schedule doubling_all_gather_schedule(int p, double bytes);
Schedule halving_doubling_all_reduce_schedule(int p, double bytes);

class CollectiveAlgorithmType;
/// Recursive halving-doubling (Rabenseifner; Thakur et al.) for power-of-two groups.
const CollectiveAlgorithmType& halving_doubling_algorithm();

}  // namespace clearfog::collectives
