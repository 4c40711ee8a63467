#pragma once
// Wall time of the phases of a run, logged at debug level (`--log-level debug`) with the peak
// resident memory so far: where a slow or large run spends its time and memory. Never printed on
// stdout.
#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>
#include <string>
#include <string_view>

namespace clearfog {

class PhaseTimer {
public:
  /// Logs the time since the previous mark (or construction) under `phase`, and returns it.
  double mark(std::string_view phase) {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - last_).count();
    if (spdlog::should_log(spdlog::level::debug)) {
      const double peak_MB = peak_rss_MB();
      if (peak_MB > 0)
        spdlog::debug("{}: {:.3f} s (peak RSS {:.0f} MB)", phase, seconds, peak_MB);
      else
        spdlog::debug("{}: {:.3f} s", phase, seconds);
    }
    last_ = now;
    return seconds;
  }

private:
  /// The process's peak resident set so far (VmHWM of /proc/self/status), 0 where there is none.
  static double peak_rss_MB() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
      if (key == "VmHWM:") {
        double kB = 0;
        status >> kB;
        return kB * 1024 / 1e6;
      }
      status.ignore(4096, '\n');
    }
    return 0;
  }

  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace clearfog
