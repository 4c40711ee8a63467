#pragma once
// Watches one run from beside it: every `every_s` of wall time it prints the phase, the simulated
// time and the share of the expected ops and messages done to stderr, and after `timeout_s` it
// hands a located error to `on_timeout` (the app ends the process with it: the run cannot be
// interrupted, SimGrid holds the main thread) whatever the run is doing (building a platform,
// planning, simulating). It counts SimGrid's completed activities and reads its clock through
// SimGrid's own signals, so the engine needs no hook.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/Errors.hpp"

namespace clearfog::driver {

class RunWatch {
public:
  /// timeout_s 0: no limit; every_s: seconds between progress lines (the first after every_s);
  /// on_timeout must not return; `command` names the lines ("clearfog burst: 10 s: …").
  RunWatch(double timeout_s, double every_s, std::function<void(const Diagnostic&)> on_timeout,
           std::string command = "run");
  ~RunWatch();
  RunWatch(const RunWatch&) = delete;
  RunWatch& operator=(const RunWatch&) = delete;

  /// "planning", "simulating"; `expected` ops and messages (0: unknown) for the share done.
  void phase(std::string name, std::uint64_t expected = 0);

  /// "simulating, 12.5 s simulated, ~40 % of 1200000 ops and messages": the line of one report.
  static std::string progress_text(const std::string& phase, double simulated_s, std::uint64_t done,
                                   std::uint64_t expected);

private:
  void loop();

  double timeout_s_, every_s_;
  std::function<void(const Diagnostic&)> on_timeout_;
  std::string command_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::string phase_ = "loading";
  std::atomic<std::uint64_t> expected_{0};
  std::thread thread_;
};

}  // namespace clearfog::driver
