#pragma once
// The actor-based replay that preceded engine::simulate(): kept only to compare the two (see
// LegacyReplay.cpp). SimGrid keeps global state: at most once per process.
#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::engine {

SimulationResult simulate_legacy(const topology::ClusterTopology& topology, const program::Plan& plan);

}  // namespace clearfog::engine
