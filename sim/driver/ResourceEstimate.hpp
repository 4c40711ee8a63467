#pragma once
// What a run will cost this machine, estimated before it is carried out: the plan's ops and
// messages times the memory the replay holds for each (docs/reliability.md, "Resources"), and a
// floor on the ops known before planning. A run whose estimate exceeds the memory it may use is
// refused with the estimate and the knobs that shrink it, instead of exhausting the machine.
#include <cstdint>
#include <optional>

#include "config/ScenarioSpec.hpp"
#include "program/Program.hpp"

namespace clearfog::driver {

/// Peak memory per op or message of a run (planning and the compact replay, docs/engine.md), B.
/// Calibrated on scenarios/gpt3-175b-1024gpu.yaml with --no-symmetry: 4,807,040 ops + 2,793,184
/// messages at 590 MiB peak RSS, 76 B each past the fixed part; checked against the 530B and 1T
/// rows of docs/performance.md (symmetric replays, which it covers by 37 % and 15 %).
inline constexpr double kBytesPerActivity = 76;
/// What a run holds before its first op: the executable, SimGrid, the platform (quickstart: 40 MiB).
inline constexpr double kBaseBytes = 40.0 * 1024 * 1024;

struct ResourceEstimate {
  std::uint64_t ops = 0;
  std::uint64_t messages = 0;
  bool floor = false;  ///< a lower bound from the scenario's counts (before planning)
  [[nodiscard]] double bytes() const {
    return kBaseBytes + kBytesPerActivity * static_cast<double>(ops + messages);
  }
};

/// Ops and point-to-point messages of a plan (every send of every Exchange).
ResourceEstimate estimate_plan(const program::Plan& plan);

/// A floor on the ops, from the scenario alone: every device runs a forward and a backward pass of
/// each of its model chunks for each micro-batch (granularity chunk fuses no further).
ResourceEstimate estimate_floor(const config::ScenarioSpec& scenario);

/// This machine's available memory (MemAvailable of /proc/meminfo), B; nullopt where unknown.
std::optional<double> available_memory_bytes();

/// Throws ConfigError located at --max-memory when the estimate exceeds `max_bytes`, with the
/// estimate and the keys that shrink it.
void check_memory(const ResourceEstimate& estimate, double max_bytes);

}  // namespace clearfog::driver
