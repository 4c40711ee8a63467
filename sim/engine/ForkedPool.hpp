#pragma once
// Many independent simulations at once: each body runs in its own forked child (SimGrid allows one
// simulation per process), at most `jobs` children at a time. Unlike run_forked(), a failing body
// does not throw: its outcome carries the message, so one bad configuration cannot stop a search.
#include <functional>
#include <string>
#include <vector>

namespace clearfog::engine {

struct ForkedOutcome {
  bool ok = false;
  std::string text;  // the body's result if ok, else why it failed (exception message or signal)
};

/// Runs every body in a child process, at most `jobs` (>= 1) concurrently; outcomes are in the
/// order of `bodies` whatever order the children finish in.
std::vector<ForkedOutcome> run_forked_all(const std::vector<std::function<std::string()>>& bodies, int jobs);

}  // namespace clearfog::engine
