#include "parallel/PipelineSchedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/Errors.hpp"

namespace clearfog::parallel {
namespace {

using Pass = PipelineStep::Pass;

/// Forwards a stage runs before its first backward. After them every schedule here alternates one
/// forward and one backward, then drains the remaining backwards, so this number is the schedule.
int warmup_passes(PipelineScheduleKind kind, const PipelineShape& shape, int stage) {
  const int p = shape.stages;
  const int m = shape.micro_batches;
  const int v = shape.virtual_stages;
  switch (kind) {
    case PipelineScheduleKind::GPipe: return m;
    case PipelineScheduleKind::OneFOneB: return std::min(p - stage - 1, m);
    case PipelineScheduleKind::Interleaved:
      // Megatron-LM forward_backward_pipelining_with_interleaving: the last stage needs (v-1)p
      // forwards before the first backward can come back through all chunks; each earlier stage
      // two more, one for the forward and one for the backward trip to its successor.
      return std::min(2 * (p - stage - 1) + (v - 1) * p, m * v);
  }
  return m;
}

/// The k-th forward or backward on a stage. Interleaved takes micro-batches in groups of p per
/// chunk (Megatron's get_model_chunk_id): k = 0..p-1 chunk 0, p..2p-1 chunk 1, ..., then the next
/// group of p micro-batches; backwards walk the chunks in reverse.
PipelineStep nth_pass(PipelineScheduleKind kind, const PipelineShape& shape, Pass pass, int k) {
  if (kind != PipelineScheduleKind::Interleaved) return {pass, k, 0};
  const int p = shape.stages;
  const int v = shape.virtual_stages;
  const int group = k / (p * v);
  const int in_group = k % (p * v);
  const int chunk = in_group / p;
  return {pass, group * p + in_group % p, pass == Pass::Forward ? chunk : v - 1 - chunk};
}

void check_stage(const PipelineShape& shape, int stage) {
  if (stage < 0 || stage >= shape.stages)
    throw Error(fmt::format("pipeline schedule: stage must be in 0 … p-1 = {}, got {}", shape.stages - 1, stage));
}

std::string step_label(const PipelineStep& step, int v) {
  const char pass = step.pass == Pass::Forward ? 'F' : 'B';
  if (v == 1) return fmt::format("{}{}", pass, step.micro_batch);
  return fmt::format("{}{}.{}", pass, step.micro_batch, step.chunk);
}

std::string closed_form_text(PipelineScheduleKind kind) {
  return kind == PipelineScheduleKind::Interleaved ? "((p-1)/v)/(m+(p-1)/v)" : "(p-1)/(m+p-1)";
}

}  // namespace

void check_pipeline_shape(PipelineScheduleKind kind, const PipelineShape& shape) {
  const int p = shape.stages;
  const int m = shape.micro_batches;
  const int v = shape.virtual_stages;
  const auto name = pipeline_schedule_name(kind);
  if (p < 1) throw Error(fmt::format("{} pipeline: stages must be >= 1, got p = {}", name, p));
  if (m < 1) throw Error(fmt::format("{} pipeline: micro-batches must be >= 1, got m = {}", name, m));
  if (v < 1) throw Error(fmt::format("{} pipeline: virtual stages must be >= 1, got v = {}", name, v));
  if (kind == PipelineScheduleKind::Interleaved) {
    if (v < 2)
      throw Error(fmt::format("interleaved pipeline: needs at least 2 model chunks per device (v >= 2), got v = {}", v));
    if (m % p != 0)
      throw Error(fmt::format("interleaved pipeline: micro-batches must be a multiple of the stages "
                              "(m % p == 0, Megatron-LM's rule), got m = {}, p = {}",
                              m, p));
  } else if (v != 1) {
    throw Error(fmt::format("{} pipeline: holds one model chunk per device (v = 1), got v = {}; "
                            "use interleaved for v >= 2",
                            name, v));
  }
}

std::vector<PipelineStep> pipeline_schedule(PipelineScheduleKind kind, const PipelineShape& shape, int stage) {
  check_pipeline_shape(kind, shape);
  check_stage(shape, stage);
  const int passes = shape.micro_batches * shape.virtual_stages;
  const int warmup = warmup_passes(kind, shape, stage);
  std::vector<PipelineStep> steps;
  steps.reserve(2 * static_cast<std::size_t>(passes));
  for (int k = 0; k < warmup; ++k) steps.push_back(nth_pass(kind, shape, Pass::Forward, k));
  for (int k = 0; k < passes - warmup; ++k) {
    steps.push_back(nth_pass(kind, shape, Pass::Forward, warmup + k));
    steps.push_back(nth_pass(kind, shape, Pass::Backward, k));
  }
  for (int k = passes - warmup; k < passes; ++k) steps.push_back(nth_pass(kind, shape, Pass::Backward, k));
  return steps;
}

int max_in_flight(PipelineScheduleKind kind, const PipelineShape& shape, int stage) {
  check_pipeline_shape(kind, shape);
  check_stage(shape, stage);
  // The count peaks just before the first backward: the warm-up plus the steady state's first
  // forward, unless the warm-up already ran every forward.
  return std::min(warmup_passes(kind, shape, stage) + 1, shape.micro_batches * shape.virtual_stages);
}

double peak_activation_micro_batches(PipelineScheduleKind kind, const PipelineShape& shape, int stage) {
  return static_cast<double>(max_in_flight(kind, shape, stage)) / shape.virtual_stages;
}

double ideal_bubble_fraction(PipelineScheduleKind kind, const PipelineShape& shape) {
  check_pipeline_shape(kind, shape);
  const double fill = static_cast<double>(shape.stages - 1) / shape.virtual_stages;
  return fill / (shape.micro_batches + fill);
}

PipelineTimeline evaluate_pipeline(PipelineScheduleKind kind, const PipelineShape& shape, double forward_time,
                                   double backward_time) {
  check_pipeline_shape(kind, shape);
  if (!(forward_time > 0) || !std::isfinite(forward_time))
    throw Error(fmt::format("evaluate_pipeline: forward time must be > 0, got {}", forward_time));
  if (!(backward_time > 0) || !std::isfinite(backward_time))
    throw Error(fmt::format("evaluate_pipeline: backward time must be > 0, got {}", backward_time));
  const int p = shape.stages;
  const int m = shape.micro_batches;
  const int v = shape.virtual_stages;
  const int chunks = p * v;  // model chunks in model order
  const double chunk_forward = forward_time / v;
  const double chunk_backward = backward_time / v;

  std::vector<std::vector<PipelineStep>> orders;
  for (int s = 0; s < p; ++s) orders.push_back(pipeline_schedule(kind, shape, s));
  // End times by [model chunk][micro-batch]; NaN until the pass has run.
  constexpr double kNotYet = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::vector<double>> forward_end(chunks, std::vector<double>(m, kNotYet));
  std::vector<std::vector<double>> backward_end(chunks, std::vector<double>(m, kNotYet));

  PipelineTimeline timeline;
  timeline.busy.resize(p);
  std::vector<std::size_t> next(p, 0);
  std::vector<double> free_at(p, 0.0);
  // Each sweep runs every stage as far as its inputs allow; an order that is a valid topological
  // order of the dependencies finishes in at most 2·m·v sweeps.
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < p; ++s) {
      while (next[s] < orders[s].size()) {
        const PipelineStep& step = orders[s][next[s]];
        const int g = step.chunk * p + s;
        const int j = step.micro_batch;
        double ready = 0;
        if (step.pass == Pass::Forward) {
          ready = g > 0 ? forward_end[g - 1][j] : 0.0;
        } else {
          const double gradient = g + 1 < chunks ? backward_end[g + 1][j] : 0.0;
          // Spelled out because std::max silently drops a NaN second argument.
          ready = std::isnan(gradient) ? kNotYet : std::max(forward_end[g][j], gradient);
        }
        if (std::isnan(ready)) break;
        const double start = std::max(free_at[s], ready);
        const double end = start + (step.pass == Pass::Forward ? chunk_forward : chunk_backward);
        (step.pass == Pass::Forward ? forward_end : backward_end)[g][j] = end;
        timeline.busy[s].emplace_back(start, end);
        free_at[s] = end;
        ++next[s];
        progress = true;
      }
    }
  }
  for (int s = 0; s < p; ++s)
    if (next[s] < orders[s].size()) {
      const PipelineStep& step = orders[s][next[s]];
      throw SimulationError(fmt::format("{} pipeline deadlocks: stage {} waits forever on {} of micro-batch {} chunk {}",
                                        pipeline_schedule_name(kind), s,
                                        step.pass == Pass::Forward ? "forward" : "backward", step.micro_batch,
                                        step.chunk));
    }

  timeline.makespan = *std::max_element(free_at.begin(), free_at.end());
  const double busy_total = p * static_cast<double>(m) * (forward_time + backward_time);
  timeline.bubble_fraction = 1.0 - busy_total / (p * timeline.makespan);
  return timeline;
}

std::string render_pipeline_schedule(PipelineScheduleKind kind, const PipelineShape& shape) {
  const int v = shape.virtual_stages;
  // Slots of 1/v of a stage's forward: a chunk's forward is 1 slot and its backward 2, exactly.
  const PipelineTimeline timeline = evaluate_pipeline(kind, shape, v, 2.0 * v);
  const auto slots = static_cast<std::size_t>(std::lround(timeline.makespan));

  std::vector<std::vector<std::string>> rows(shape.stages, std::vector<std::string>(slots, "."));
  std::size_t width = 1;
  for (int s = 0; s < shape.stages; ++s) {
    const auto steps = pipeline_schedule(kind, shape, s);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto [start, end] = timeline.busy[s][i];
      const std::string label = step_label(steps[i], v);
      width = std::max(width, label.size());
      for (auto t = static_cast<std::size_t>(std::lround(start)); t < static_cast<std::size_t>(std::lround(end)); ++t)
        rows[s][t] = label;
    }
  }

  std::string text = fmt::format("# {} pipeline: p = {} stages, m = {} micro-batches, v = {} chunk(s) per device\n",
                                 pipeline_schedule_name(kind), shape.stages, shape.micro_batches, v);
  text += v == 1 ? "# Fj/Bj: forward/backward of micro-batch j; one slot = one forward, a backward fills 2 slots\n"
                 : "# Fj.c/Bj.c: forward/backward of micro-batch j on chunk c; one slot = 1/v of a stage's forward, "
                   "a backward fills 2 slots\n";
  const std::size_t label_width = fmt::format("stage {}", shape.stages - 1).size();
  for (int s = 0; s < shape.stages; ++s) {
    std::string line = fmt::format("{:<{}}:", fmt::format("stage {}", s), label_width);
    for (const auto& cell : rows[s]) line += fmt::format(" {:<{}}", cell, width);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    text += line + '\n';
  }
  text += fmt::format("bubble fraction: {:.4f} simulated, {:.4f} closed form {}\n", timeline.bubble_fraction,
                      ideal_bubble_fraction(kind, shape), closed_form_text(kind));
  return text;
}

}  // namespace clearfog::parallel
