#pragma once
// Ring all-reduce (Patarasuk & Yuan 2009; NCCL's ring): the buffer is cut into p chunks; in
// p-1 reduce-scatter steps each rank sends one chunk to its successor and reduces the chunk it
// receives from its predecessor, then p-1 all-gather steps circulate the reduced chunks.
// Time on links of bandwidth B with per-message latency a: 2(p-1)·a + 2(p-1)/p·n/B.
#include <string>
#include <vector>

#include "collectives/TagAllocator.hpp"
#include "program/Program.hpp"

namespace clearfog::collectives {

/// One step of one ring member: send `bytes` to `send_to`, receive as much from `recv_from`.
struct RingStep {
  int send_to;
  int recv_from;
  double bytes;
  bool reduce;  // reduce-scatter phase (the received chunk is reduced into the local one)
};

/// The 2(p-1) steps of the member at `position` of a ring of `ring.size()` ranks (pure).
std::vector<RingStep> ring_all_reduce_steps(const std::vector<int>& ring, int position, double bytes);

/// Appends a ring all-reduce of `bytes` over `ring` to the plan, one Exchange op per step on
/// `stream` (append_collective with the ring algorithm at step fidelity, no chunking). deps[i]
/// are the ops member i must wait for before its first step. Returns, per member, the op that
/// ends its part of the collective.
std::vector<program::OpIndex> append_ring_all_reduce(program::Plan& plan, const std::vector<int>& ring,
                                                     double bytes, program::Stream stream,
                                                     program::Category category, const std::string& name,
                                                     const std::vector<std::vector<program::OpIndex>>& deps,
                                                     TagAllocator& tags);

}  // namespace clearfog::collectives
