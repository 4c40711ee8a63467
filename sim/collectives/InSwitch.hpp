#pragma once
// All-reduce reduced inside the switch (NVLink SHARP / NVLS, InfiniBand SHARP): participants
// 0 … p-1 are the members, participant p the switch's endpoint. The buffer goes in k chunks of
// c = n/k: in round j every member sends chunk j up and the switch, which has all of chunk j-1
// since round j-1, sends the reduced chunk j-1 down to every member. k + 1 rounds, each moving one
// chunk per direction of a member's link: time (k+1)·(α_s + c·β) = (k+1)·α_s + n·β + n/k·β, with
// α_s the member-to-switch latency. A member moves n up and n down, against the ring's
// 2(p-1)/p·n each way; the reduction in the switch is taken as free.
#include "collectives/Schedule.hpp"

namespace clearfog::collectives {

Schedule in_switch_all_reduce_schedule(int p, double bytes, double chunk_B = 0);

class CollectiveAlgorithmType;
/// NCCL's NVLS: the node's switch reduces.
const CollectiveAlgorithmType& in_switch_algorithm();

}  // namespace clearfog::collectives
