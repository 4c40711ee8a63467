#pragma once
// Many independent simulations at once: each body runs in its own forked child (SimGrid allows one
// simulation per process), at most `jobs` children at a time. Unlike run_forked(), a failing body
// does not throw: its outcome carries the message, so one bad configuration cannot stop a search.
// A caught SIGINT or SIGTERM (core/Interrupt.hpp) kills the running children and throws
// Interrupted; the outcomes finished by then have reached `on_finished`.
#include <functional>
#include <string>
#include <vector>

namespace clearfog::engine {

struct ForkedOutcome {
  bool ok = false;
  bool timed_out = false;  // killed after ForkedPoolOptions::timeout_s
  std::string text;  // the body's result if ok, else why it failed (exception message or signal)
};

struct ForkedPoolOptions {
  int jobs = 1;          // children at the same time (>= 1)
  double timeout_s = 0;  // a body still running after this many seconds is killed (0: no limit)
  /// Called in the parent as each body ends, with its index and outcome.
  std::function<void(std::size_t index, const ForkedOutcome& outcome)> on_finished;
  /// Called in the parent at least every 0.2 s while children run (progress lines).
  std::function<void()> on_wait;
};

/// Runs every body in a child process; outcomes are in the order of `bodies` whatever order the
/// children finish in.
std::vector<ForkedOutcome> run_forked_all(const std::vector<std::function<std::string()>>& bodies,
                                          const ForkedPoolOptions& options);
inline std::vector<ForkedOutcome> run_forked_all(const std::vector<std::function<std::string()>>& bodies, int jobs) {
  return run_forked_all(bodies, ForkedPoolOptions{jobs, 0, {}, {}});
}

}  // namespace clearfog::engine
