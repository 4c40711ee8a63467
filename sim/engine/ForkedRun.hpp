#pragma once
// SimGrid allows one simulation per process. run_forked() runs a function in a child process and
// returns the text it produced, so tests and sweeps can run many simulations from one process.
#include <functional>
#include <string>

namespace clearfog::engine {

/// Runs `body` in a forked child; the string it returns comes back through a pipe. If the child
/// throws, its message is rethrown in the parent: a SimulationError as SimulationError,
/// a BudgetError (over --max-memory) as BudgetError, anything else as clearfog::Error. A child
/// killed by a signal is an Error naming the signal.
std::string run_forked(const std::function<std::string()>& body);

}  // namespace clearfog::engine

#include "engine/ReplayOptions.hpp"
#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::engine {

/// simulate() in a child process, so one process can run many simulations (tests, sweeps). The
/// result carries the timings, counts and the replay's mode and detail.
SimulationResult simulate_forked(const topology::ClusterTopology& topology, const program::Plan& plan,
                                 const ReplayOptions& options = {});

}  // namespace clearfog::engine
