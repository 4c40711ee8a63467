#pragma once
// What a replay measured: when each op of each rank started and ended.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/RankTimings.hpp"

namespace clearfog::engine {

/// How the iteration was replayed (engine/Replay.hpp): every rank ("full"), or one representative
/// per class of ranks proven to have equal timelines ("symmetric").
struct ReplayInfo {
  std::string mode = "full";
  std::string detail;                 // the symmetry used, or why none was
  std::uint64_t simulated_ops = 0;    // ops the engine carried out (all of them in a full replay)
  std::uint64_t simulated_messages = 0;
};

struct SimulationResult {
  double makespan_s = 0;                        // simulated time when the last op ended
  RankTimings ops;                              // [rank][op index], aligned with the plan
  std::uint64_t ops_executed = 0;               // ops of the iteration (every rank)
  std::uint64_t messages = 0;                   // point-to-point transfers of the iteration
  ReplayInfo replay;
};

}  // namespace clearfog::engine
