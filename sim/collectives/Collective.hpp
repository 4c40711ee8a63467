#pragma once
// Every collective, planned as ops of a Plan. append_collective() checks the request, asks the
// algorithm's type (CollectiveAlgorithmType.hpp; registry: CollectiveAlgorithms.cpp) for its
// Schedule and lowers it at the requested fidelity (AppendSchedule.hpp).
// Schedules, times and sources: docs/collectives.md.
#include <vector>

#include "collectives/CollectiveRequest.hpp"
#include "collectives/ScheduleCache.hpp"
#include "collectives/TagAllocator.hpp"
#include "config/CollectiveSpec.hpp"
#include "program/Program.hpp"

namespace clearfog::collectives {

/// Appends the collective; returns, per member, the op that ends its part (a zero-time marker
/// for a member that exchanges nothing). `plan.ranks` must already cover every rank named,
/// the switch endpoint included, which gets its own program (receive from all, send to all).
/// Throws clearfog::Error for an (op, algorithm) pair that does not exist or a request that
/// cannot be planned, naming both.
std::vector<program::OpIndex> append_collective(program::Plan& plan, const CollectiveRequest& request,
                                                TagAllocator& tags);
/// The same, reusing the lowered schedule of an earlier request of the same shape (ScheduleCache.hpp):
/// the plan is identical, only faster to build.
std::vector<program::OpIndex> append_collective(program::Plan& plan, const CollectiveRequest& request,
                                                TagAllocator& tags, ScheduleCache& cache);

/// Whether `algorithm` implements `op`; false for the policies nccl and best.
bool supports(config::CollectiveOp op, config::CollectiveAlgorithm algorithm);


}  // namespace clearfog::collectives
