#pragma once
// Identical flows carried by one SimGrid comm (docs/engine.md, "Identical flows").
//
// k transfers that leave the same op for the same op of the same peer, with the same size, start at
// the same instant on the same route: under max-min sharing they move at the same rate until they
// end together. One comm of k times the bytes would be exact if it held k shares of every link, but
// a SimGrid 3.32 comm holds one. It is exact all the same where every link that comms cross is
// crossed only by comms that carry the same number of transfers: scaling every flow of a link by
// the same k scales its max-min allocation by k, each flow keeping its bottleneck, and a link's
// flows all share one k through the flows that cross several links. A route check over every flow
// of the plan proves this before the replay; where it fails, nothing is merged.
//
// Why bother: SimGrid 3.32 removes each finished host-to-host comm from a list of every comm in
// flight (CommImpl::finish, std::list::remove), so a replay costs O(comms in flight²); a fluid ring
// over 16,384 GPUs has 131 k of them, 7 of each GPU's 8 going to the same neighbour.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/ReplayRanks.hpp"
#include "program/MessageIndex.hpp"
#include "program/Program.hpp"

namespace clearfog::engine {

struct FlowMerging {
  /// [slot][transfer] for send transfers: how many transfers the comm started at it carries (k >= 1
  /// at the first transfer of its group), 0 at the others of the group (the first's comm carries
  /// them). Empty: no merging.
  std::vector<std::vector<std::uint32_t>> carried;
  std::uint64_t transfers = 0;  // send transfers of the replayed slots
  std::uint64_t comms = 0;      // comms that carry them once merged
  std::string refusal;          // why nothing is merged (empty when merged)

  [[nodiscard]] bool merged() const { return !carried.empty(); }
  [[nodiscard]] std::uint32_t carried_by(std::uint32_t slot, std::uint32_t transfer) const {
    return carried.empty() ? 1 : carried[slot][transfer];
  }
};

/// The network model's settings the exactness argument rests on.
struct MergeNetwork {
  double tcp_gamma_B = 4194304;  // network/TCP-gamma: a comm's rate is also bounded by
                                 // gamma / (2 · latency · latency factor)
  double latency_factor = 1;     // network/latency-factor
  bool crosstraffic = false;     // network/crosstraffic: a comm also loads its back route
};

/// The merging of `ranks`' flows, or the reason there is none: only a full replay (a symmetric one
/// runs on a quotient platform), without a background stream (its kernels start by the order of
/// same-instant completions, which merging changes), without crosstraffic (back routes are not
/// checked), and where the route check holds. Needs the SimGrid platform sealed (routes).
FlowMerging plan_flow_merging(const program::Plan& plan, const program::MessageIndex& index,
                              const ReplayRanks& ranks, const MergeNetwork& network);

}  // namespace clearfog::engine
