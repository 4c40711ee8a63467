#pragma once
// What a replay measured: when each op of each rank started and ended.
#include <cstdint>
#include <vector>

namespace clearfog::engine {

struct OpTiming {
  double start_s = -1;
  double end_s = -1;
  [[nodiscard]] double duration_s() const { return end_s - start_s; }
};

struct SimulationResult {
  double makespan_s = 0;                        // simulated time when the last op ended
  std::vector<std::vector<OpTiming>> ops;       // [rank][op index], aligned with the plan
  std::uint64_t ops_executed = 0;
  std::uint64_t messages = 0;                   // point-to-point transfers simulated
};

}  // namespace clearfog::engine
