#pragma once
// Pipeline-parallel schedules as pure functions (Huang et al. 2019 GPipe; Narayanan et al. 2021
// PipeDream-Flush / 1F1B and interleaved 1F1B): for each stage, the order in which it runs the
// forward and backward passes of the micro-batches. Planners turn the order into ops; printing it
// is `clearfog schedule`.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace clearfog::parallel {

enum class PipelineScheduleKind { GPipe, OneFOneB, Interleaved };

inline constexpr std::array<PipelineScheduleKind, 3> kAllPipelineSchedules = {
    PipelineScheduleKind::GPipe, PipelineScheduleKind::OneFOneB, PipelineScheduleKind::Interleaved};

constexpr std::string_view pipeline_schedule_name(PipelineScheduleKind k) {
  switch (k) {
    case PipelineScheduleKind::GPipe: return "gpipe";
    case PipelineScheduleKind::OneFOneB: return "1f1b";
    case PipelineScheduleKind::Interleaved: return "interleaved";
  }
  return "?";
}

constexpr std::optional<PipelineScheduleKind> parse_pipeline_schedule(std::string_view name) {
  for (auto k : kAllPipelineSchedules)
    if (pipeline_schedule_name(k) == name) return k;
  return std::nullopt;
}

/// One pass of one micro-batch through one model chunk held by a stage.
struct PipelineStep {
  enum class Pass { Forward, Backward } pass = Pass::Forward;
  int micro_batch = 0;  // 0 … m-1
  int chunk = 0;        // model chunk on this device, 0 … v-1 (always 0 unless interleaved)
};

struct PipelineShape {
  int stages = 1;          // p: pipeline-parallel degree
  int micro_batches = 1;   // m: per iteration, per pipeline
  int virtual_stages = 1;  // v: model chunks per device (interleaved only; 1 otherwise)
};

/// Throws clearfog::Error unless the shape can run `kind`: p, m, v >= 1; interleaved needs v >= 2
/// and m % p == 0 (Megatron-LM's rule); GPipe and 1F1B hold one chunk per device (v == 1).
void check_pipeline_shape(PipelineScheduleKind kind, const PipelineShape& shape);

/// The order of passes on `stage` (0 … p-1). Throws clearfog::Error for an impossible shape
/// (interleaved needs m to be a multiple of p, v >= 2; every count >= 1), naming the rule.
std::vector<PipelineStep> pipeline_schedule(PipelineScheduleKind kind, const PipelineShape& shape, int stage);

/// Largest number of micro-batches whose activations `stage` holds at once (forwards run whose
/// backward has not): GPipe m, 1F1B min(p - stage, m), interleaved as Narayanan et al. §2.2.
/// Interleaved counts (micro-batch, chunk) pairs, each holding 1/v of the stage's activations:
/// min(2(p - stage - 1) + (v - 1)p + 1, m·v).
int max_in_flight(PipelineScheduleKind kind, const PipelineShape& shape, int stage);

/// max_in_flight in units of one micro-batch through the whole stage (all its chunks), i.e. what
/// the activation memory of `stage` is proportional to: max_in_flight / v. On stage 0 of an
/// interleaved schedule with m >= 2p this is p·(1 + (p-1)/(p·v)) (Korthikanti et al. 2022 §4.2.3,
/// whose "m" there is the number of chunks, our v).
double peak_activation_micro_batches(PipelineScheduleKind kind, const PipelineShape& shape, int stage);

/// Bubble fraction of the ideal closed forms (formulas.md): (p-1)/(m+p-1) for GPipe and 1F1B,
/// ((p-1)/v)/(m+(p-1)/v) interleaved — for tests and reports.
double ideal_bubble_fraction(PipelineScheduleKind kind, const PipelineShape& shape);

/// When each stage computes, from a list-scheduling of every stage's passes in its schedule order
/// with zero-cost communication. A pass starts when its stage is free and its inputs exist: the
/// forward of micro-batch j on model chunk g needs forward j of chunk g-1; its backward needs
/// backward j of chunk g+1 and its own forward. Stage s chunk c holds model chunk c·p + s.
struct PipelineTimeline {
  double makespan = 0;         // time of the last pass's end, in the unit of the pass times
  double bubble_fraction = 0;  // idle share of p·makespan: 1 - busy / (p·makespan)
  /// busy[s][i]: [start, end) of the i-th step of pipeline_schedule(kind, shape, s).
  std::vector<std::vector<std::pair<double, double>>> busy;
};

/// Evaluates the schedule with `forward_time` and `backward_time` for a whole stage (> 0 each; a
/// chunk takes 1/v of them). Throws clearfog::Error for a bad shape or times, SimulationError if
/// the orders deadlock (they do not for the three schedules here).
PipelineTimeline evaluate_pipeline(PipelineScheduleKind kind, const PipelineShape& shape, double forward_time,
                                   double backward_time);

/// Text chart: one row per stage, one column per time slot of 1/v of a stage's forward time (a
/// chunk's forward takes 1 slot, its backward 2), e.g. "stage 0: F0 F1 F2 B0 B0 ...", idle slots
/// '.', followed by the chart's bubble fraction beside the closed form; for `clearfog schedule`.
std::string render_pipeline_schedule(PipelineScheduleKind kind, const PipelineShape& shape);

}  // namespace clearfog::parallel
