#pragma once
// Carries a Plan out on a platform with SimGrid (docs/step-model.md, section 5): exchanges are real
// simulated messages over the topology's links (CM02 network model, no cross-traffic, so a link of
// bandwidth B moves n bytes in n/B plus its latency, and flows sharing a link share it max-min).
// The replay is driven from SimGrid's main loop (ActivityReplay.hpp). When the plan's symmetry hints
// are proven on the platform (Symmetry.hpp), one representative per class of isomorphic ranks is
// replayed and the others get its timeline; ReplayInfo says which mode ran.
//
// SimGrid keeps global state: call simulate() at most once per process (see ForkedRun.hpp).
#include "engine/ReplayOptions.hpp"
#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::engine {

/// Throws SimulationError if the plan is malformed or the replay stops with ops left (a deadlock),
/// naming each stuck op and what it waits for; BudgetError if the estimated memory exceeds
/// options.max_memory_B.
SimulationResult simulate(const topology::ClusterTopology& topology, const program::Plan& plan,
                          const ReplayOptions& options = {});

}  // namespace clearfog::engine
