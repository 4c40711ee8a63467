#pragma once
// Runs the points of a sweep, each in its own child process (SimGrid allows one simulation per
// process), at most `jobs` at a time. A point that fails — bad configuration, simulation error,
// crash (signal) or timeout — is recorded with its status and message; the sweep goes on.
// DIR/results.csv is rebuilt from all points, in id order, atomically: at most once a second while
// points finish, and at the end.
#include <filesystem>
#include <functional>
#include <string>

#include "sweep/PointRecord.hpp"
#include "sweep/SweepSpec.hpp"

namespace clearfog::sweep {

struct SweepOptions {
  int jobs = 1;                      // concurrent child processes
  std::filesystem::path out_dir;
  double timeout_s = 0;              // per point, wall clock; 0 = none
  bool resume = false;               // skip points whose json exists
  int shard_index = 0;               // run the points with id % shard_count == shard_index
  int shard_count = 1;
  bool progress_bar = false;         // a redrawn bar (terminal) instead of one line per point
  bool comm_profile = false;         // each point's communication profile: DIR/comm/<id>/, summary "comm"
  bool simulate_oom = false;         // simulate points whose memory estimate exceeds the device too
};

struct SweepTally {
  int total = 0;       // points of this shard
  int already = 0;     // found done on --resume
  int ran = 0;
  int failed = 0;      // error or timeout
};

/// Evaluates one point in the current process: loads the base scenario with the point's overrides,
/// simulates it and returns the record. Never throws. Call it in a child process (simulates).
/// With `comm_dir`, the point's communication profile goes to comm_dir/<id>/ (report/CommProfile)
/// and its JSON into the summary as "comm".
/// A point whose memory estimate exceeds the device memory is recorded as oom with that estimate
/// and not simulated, unless `simulate_oom`.
PointRecord evaluate_point(const SweepSpec& spec, const SweepPoint& point, const std::filesystem::path& comm_dir = {},
                           bool simulate_oom = false);

SweepTally run_sweep(const SweepSpec& spec, const SweepOptions& options);

/// Parses "i/n" (0 <= i < n); throws ConfigError otherwise.
std::pair<int, int> parse_shard(const std::string& text);

}  // namespace clearfog::sweep
