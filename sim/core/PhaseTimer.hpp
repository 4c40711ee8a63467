#pragma once
// Wall time of the phases of a run, logged at debug level (`--log-level debug`): where a slow run
// spends its time. Never printed on stdout.
#include <spdlog/spdlog.h>

#include <chrono>
#include <string_view>

namespace clearfog {

class PhaseTimer {
public:
  /// Logs the time since the previous mark (or construction) under `phase`, and returns it.
  double mark(std::string_view phase) {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - last_).count();
    spdlog::debug("{}: {:.3f} s", phase, seconds);
    last_ = now;
    return seconds;
  }

private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace clearfog
