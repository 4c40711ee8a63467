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

class HostLaunches {
public:
  HostLaunches(const config::HostIssue& model, program::Plan& plan);

  [[nodiscard]] bool active() const { return model_.active(); }
  /// The host op after which `rank`'s next device op, `kernels` kernels launched in a pass of
  /// `category`, may start (none: host time is not modelled, or the op launches nothing).
  std::optional<program::OpIndex> launch(int rank, program::Category category, std::size_t kernels);
  /// The host of `rank` copies the result of device op `op` to host memory: it issues what it
  /// owes, then waits for `op` to end before it launches anything else.
  void wait_for(int rank, std::span<const program::OpIndex> ops);
  /// Every rank issues what it still owes (the step ends when its last launch is issued).
  void finish();
  /// Host time per kernel launched in a pass of `category` (eager, without CUDA graphs).
  [[nodiscard]] double launch_s(program::Category category) const;

private:
  void flush(int rank);

  config::HostIssue model_;
  program::Plan& plan_;
  std::vector<double> owed_s_;  // per rank: the launches of its last op after the first
};

}  // namespace clearfog::parallel
