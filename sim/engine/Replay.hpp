#pragma once
// Carries a Plan out on a platform with SimGrid: one actor per (rank, stream) replays that
// stream's ops in program order, waiting on cross-stream dependencies; exchanges are real
// simulated messages over the topology's links (CM02 network model, no cross-traffic, so a link
// of bandwidth B moves n bytes in n/B plus its latency).
//
// SimGrid keeps global state: call simulate() at most once per process (see ForkedRun.hpp).
#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::engine {

/// Throws SimulationError if the plan is malformed or the replay stops with ops left (a deadlock),
/// naming each stuck op and what it waits for.
SimulationResult simulate(const topology::ClusterTopology& topology, const program::Plan& plan);

}  // namespace clearfog::engine
