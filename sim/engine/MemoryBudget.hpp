#pragma once
// What a replay holds in memory, estimated from the plan before it starts (docs/engine.md,
// section 4), and the refusal when that exceeds what the run may use.
#include <cstdint>

#include "engine/ActivityReplay.hpp"
#include "program/MessageIndex.hpp"
#include "program/Program.hpp"

namespace clearfog::engine {

struct ReplayFootprint {
  double plan_B = 0;       // the plan as built (measured)
  double planner_B = 0;    // what the planner held beside the finished plan at its peak (calibrated, see the .cpp)
  double index_B = 0;      // which transfer matches which, and the keys matched while it is built
  double state_B = 0;      // per-op and per-transfer state and timelines of the replayed ranks
  double simgrid_B = 0;    // hosts, links, routes and in-flight flows (calibrated, see the .cpp)
  [[nodiscard]] double total_B() const { return plan_B + planner_B + index_B + state_B + simgrid_B; }
};

ReplayFootprint estimate_footprint(const program::Plan& plan, const program::MessageIndex& index,
                                   const ReplayRanks& ranks, int endpoints);

/// Throws BudgetError when `footprint` exceeds `max_B` (0: no limit), with the estimate, the size
/// of the plan and the settings that shrink it.
void check_budget(const ReplayFootprint& footprint, double max_B, const program::Plan& plan,
                  const program::MessageIndex& index);

/// MemAvailable of /proc/meminfo, in bytes; 0 where it cannot be read.
double available_memory_B();

}  // namespace clearfog::engine
