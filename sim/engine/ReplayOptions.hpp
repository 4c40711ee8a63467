#pragma once
// How `clearfog run` (and tests) ask the engine to replay a plan.
#include <chrono>
#include <optional>

namespace clearfog::engine {

struct ReplayOptions {
  /// Simulate one representative per class of ranks proven to be isomorphic (docs/engine.md);
  /// false forces the full replay (`--no-symmetry`).
  bool symmetry = true;
  /// Carry identical transfers of an exchange in one comm where a route check proves it exact
  /// (engine/FlowMerging.hpp). On for a collective alone (`clearfog collective`); off for training
  /// runs, whose plans have no identical transfers or fail the check (on the 175B scenario a NIC
  /// carries comms of one and of two transfers), so that they do not pay for it.
  bool merge_identical_flows = false;
  /// Refuse to start (BudgetError) when the estimated memory exceeds this many bytes; 0: no limit.
  double max_memory_B = 0;
  /// Stop with a SimulationError once the wall clock passes this point (`--timeout`).
  std::optional<std::chrono::steady_clock::time_point> deadline;
  /// Print simulated time and progress on stderr every few seconds of a long replay.
  bool progress = false;
};

}  // namespace clearfog::engine
