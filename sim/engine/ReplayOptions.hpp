#pragma once
// How `clearfog run` (and tests) ask the engine to replay a plan.
#include <chrono>
#include <optional>

namespace clearfog::engine {

struct ReplayOptions {
  /// Simulate one representative per class of ranks proven to be isomorphic (docs/engine.md);
  /// false forces the full replay (`--no-symmetry`).
  bool symmetry = true;
  /// Refuse to start (BudgetError) when the estimated memory exceeds this many bytes; 0: no limit.
  double max_memory_B = 0;
  /// Stop with a SimulationError once the wall clock passes this point (`--timeout`).
  std::optional<std::chrono::steady_clock::time_point> deadline;
  /// Print simulated time and progress on stderr every few seconds of a long replay.
  bool progress = false;
};

}  // namespace clearfog::engine
