#pragma once
// Lowers a Schedule into ops of a Plan, at one of two fidelities:
//  - Step: one Exchange per participant and round holding that round's messages; every step pays
//    the step overhead.
//  - Fluid: one Exchange per participant holding one transfer per peer (and lane) with everything
//    the schedule sends to that peer, its overhead the latency the step plan would have paid. A ring
//    then costs O(P) messages instead of O(P^2); what it loses is in docs/collectives.md.
#include <string>
#include <vector>

#include "collectives/Schedule.hpp"
#include "collectives/TagAllocator.hpp"
#include "config/CollectiveSpec.hpp"
#include "program/Program.hpp"

namespace clearfog::collectives {

struct Lowering {
  std::vector<int> endpoints;  // plan rank of each participant; the first `members` are the members
  int members = 0;
  config::Fidelity fidelity = config::Fidelity::Step;
  double step_overhead_s = 0;
  double launch_overhead_s = 0;  // paid once, by each member's first exchange
  double step_latency_s = 0;  // fluid only, see CollectiveRequest
  program::Stream stream = program::Stream::Comm;
  program::Category category = program::Category::DataParallelComm;
  std::string name;
  std::vector<std::vector<program::OpIndex>> deps;  // per member, or empty
};

/// Returns, per member, its last op (a zero-time compute marker if it exchanges nothing).
std::vector<program::OpIndex> append_schedule(program::Plan& plan, const Schedule& schedule,
                                              const Lowering& lowering, TagAllocator& tags);

}  // namespace clearfog::collectives
