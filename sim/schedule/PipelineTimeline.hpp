#pragma once
// A pipeline schedule carried out with zero-cost communication: list scheduling of every stage's
// passes in its schedule order, each starting when its stage is free and its inputs exist. It
// is what the closed-form bubbles are checked against and what `clearfog schedule` draws.
#include <string>
#include <utility>
#include <vector>

#include "schedule/PipelineSchedule.hpp"

namespace clearfog::schedule {

struct PipelineTimeline {
  double makespan = 0;         // end of the last pass, in the unit of the pass times
  double bubble_fraction = 0;  // idle share of p·makespan: 1 - busy / (p·makespan)
  std::vector<double> busy;    // per stage, the time it computes
  /// intervals[s][i]: [start, end) of the i-th step of the stage's order (an overlapped pair's
  /// two steps share one interval).
  std::vector<std::vector<std::pair<double, double>>> intervals;
};

/// Dependencies: the forward of micro-batch j on model chunk g needs forward j of chunk g-1 (of
/// its direction); its backward (or B) needs B of chunk g+1 and its own forward; W needs its B.
/// Throws clearfog::Error for a bad shape or times, SimulationError if the orders deadlock.
PipelineTimeline evaluate_pipeline(const PipelineScheduleType& type, const PipelineShape& shape, const PassTimes& t);

/// Text chart: one row per stage, one column per time slot (a forward 1 slot, B and W 1 each, a
/// whole backward 2), idle slots '.', then each stage's in-flight count and the bubble simulated
/// beside the closed form; for `clearfog schedule`.
std::string render_pipeline_schedule(const PipelineScheduleType& type, const PipelineShape& shape);

}  // namespace clearfog::schedule
