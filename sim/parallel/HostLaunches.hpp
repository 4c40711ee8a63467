#pragma once
// The host thread of each rank as the planner lays out its device ops: a Stream::Host op before
// every launched op, which the op waits for, and a wait where the framework copies a device result
// to the host. Pure: it adds ops to a plan. Model and equations: docs/host-time.md.
//
// A device op of n kernels, each costing the host c to launch, may start once its first kernel is
// issued; its other n - 1 launches are owed and paid by the host op before the next launched op (or
// before a wait, or at the end of the step). Where the host is ahead, the device never waits; where
// it is behind, every op starts exactly when its first kernel is issued, as kernel by kernel.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "config/FrameworkProfile.hpp"
#include "program/Program.hpp"

namespace clearfog::parallel {

/// A host op that provably cannot hold its device op back is left out (its time carried into the
/// next one that is kept): until the rank's first host wait, the host's time is known exactly (the
/// sum of its ops) and the device's next compute op cannot start before the sum of the compute
/// ops before it, so where the first is not later than the second the results are the same with
/// or without the op. Only the first launch and the ops of host-bound stretches remain.
class HostLaunches {
public:
  /// `elide`: leave out the host ops that cannot bind (off where device times can shrink after
  /// planning: stragglers rescale compute ops).
  HostLaunches(const config::HostIssue& model, program::Plan& plan, bool elide = true);

  [[nodiscard]] bool active() const { return model_.active(); }
  /// The host op after which `rank`'s next device op, `kernels` kernels launched in a pass of
  /// `category`, may start (none: host time is not modelled, or the op launches nothing).
  /// `device_s`: the op's time on the compute stream (0 where unknown or on another stream).
  std::optional<program::OpIndex> launch(int rank, program::Category category, std::size_t kernels,
                                         double device_s = 0);
  /// The host of `rank` copies the result of device op `op` to host memory: it issues what it
  /// owes, then waits for `op` to end before it launches anything else.
  void wait_for(int rank, std::span<const program::OpIndex> ops);
  /// Every rank issues what it still owes (the step ends when its last launch is issued).
  void finish();
  /// Host time per kernel launched in a pass of `category` (eager, without CUDA graphs).
  [[nodiscard]] double launch_s(program::Category category) const;

private:
  /// One rank's host thread as planned so far.
  struct RankHost {
    double owed_s = 0;      // the launches of its last op after the first, not yet issued
    double carried_s = 0;   // host time of left-out host ops, not yet in a kept one
    double host_s = 0;      // the host's time when it issued its latest first launch (exact before a wait)
    double device_s = 0;    // the earliest the rank's next compute-stream op can start
    bool waited = false;    // a host wait happened: host times are no longer known exactly
  };
  void flush(int rank);
  program::OpIndex add_host_op(int rank, double seconds);

  config::HostIssue model_;
  program::Plan& plan_;
  bool elide_;
  std::vector<RankHost> ranks_;
};

}  // namespace clearfog::parallel
