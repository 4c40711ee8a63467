#pragma once
// Lowers a Schedule into ops of a Plan, at one of two fidelities:
//  - Step: one Exchange per participant and round holding that round's messages; every step pays
//    the step overhead.
//  - Fluid: one Exchange per participant holding one transfer per peer (and lane) with everything
//    the schedule sends to that peer, its overhead the latency the step plan would have paid. A ring
//    then costs O(P) messages instead of O(P^2); what it loses is in docs/collectives.md.
// Lowering happens in two steps: lower_schedule() turns a schedule into what each participant
// posts (positions and tag offsets, no ranks: pure and reusable, see ScheduleCache.hpp), and
// append_lowered() writes that into the plan for one group of ranks.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "collectives/Schedule.hpp"
#include "collectives/TagAllocator.hpp"
#include "config/CollectiveSpec.hpp"
#include "program/Program.hpp"

namespace clearfog::collectives {

/// A schedule as its participants post it, at one fidelity.
struct LoweredSchedule {
  struct Transfer {  // 16 bytes
    double bytes = 0;
    int position = 0;              // the peer's participant position
    std::uint32_t tag_offset = 0;  // from the first tag the schedule draws
  };
  struct Exchange {
    int round = 0;                   // step fidelity: its round (names the op); fluid: 0
    std::uint32_t first_transfer = 0;  // sends, then receives, in `transfers`
    std::uint32_t sends = 0;
    std::uint32_t receives = 0;
  };
  config::Fidelity fidelity = config::Fidelity::Step;
  int participants = 0;
  int rounds = 0;          // the schedule's rounds (fluid: the step plan's critical path)
  std::uint64_t tags = 0;  // tags one use of it draws
  std::vector<std::uint32_t> first_exchange;  // [participant], participants + 1 entries
  std::vector<Exchange> exchanges;
  std::vector<Transfer> transfers;
};

LoweredSchedule lower_schedule(const Schedule& schedule, config::Fidelity fidelity);

/// Where and how one use of a lowered schedule lands in a plan.
struct Lowering {
  std::span<const int> endpoints;  // plan rank of each participant; the first `members` are the members
  int members = 0;
  double step_overhead_s = 0;
  double launch_overhead_s = 0;  // paid once, by each member's first exchange
  double step_latency_s = 0;     // fluid only, see CollectiveRequest
  program::Stream stream = program::Stream::Comm;
  program::Category category = program::Category::DataParallelComm;
  std::string_view name;
  const std::vector<std::vector<program::OpIndex>>* deps = nullptr;  // per member, or null/empty
};

/// Returns, per member, its last op (a zero-time marker if it exchanges nothing).
std::vector<program::OpIndex> append_lowered(program::Plan& plan, const LoweredSchedule& schedule,
                                             const Lowering& lowering, TagAllocator& tags);

}  // namespace clearfog::collectives
