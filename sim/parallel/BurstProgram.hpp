#pragma once
// The per-device programs of a burst-parallel plan (BurstPlanner.hpp), and a background job's
// kernels multiplexed on the same devices (program::Stream::Background). Pure: docs/burst-parallelism.md.
#include <vector>

#include "parallel/BurstPlanner.hpp"
#include "parallel/GroupCollectives.hpp"
#include "program/Program.hpp"

namespace clearfog::parallel {

struct BurstSchedule {
  int devices = 1;                  // the job's devices: plan ranks 0 .. devices - 1
  int iterations = 1;               // each after the previous one's optimizer step on each device
  std::vector<double> optimizer_s;  // per layer: the optimizer step on its parameters, one device
};

/// Iteration by iteration, on device d: the forward of every layer whose width exceeds d (on its
/// samples: s mod width == d), the activations resharded where the width changes (p2p stream),
/// the backward in reverse with the activation gradients resharded back, each layer's gradient
/// all-reduced among its devices as soon as its backward ends (comm stream), then the optimizer
/// step on the layers the device took part in.
program::Plan build_burst_plan(const BurstProblem& problem, const BurstPlan& plan, const BurstSchedule& schedule,
                               const GroupCollectives& collectives);

/// A single-device training job: its layers' forward and backward times and its optimizer step.
struct BackgroundJob {
  std::vector<double> forward_s, backward_s;
  double optimizer_s = 0;
  int batch = 1;  // samples per iteration
  [[nodiscard]] double iteration_s() const;
};

/// Appends `iterations` iterations of `job` to each of ranks 0 .. devices - 1 on the background
/// stream.
void add_background(program::Plan& plan, int devices, const BackgroundJob& job, int iterations);

}  // namespace clearfog::parallel
