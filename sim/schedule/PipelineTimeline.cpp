#include "schedule/PipelineTimeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/Errors.hpp"

namespace clearfog::schedule {
namespace {

using Pass = PipelineStep::Pass;
constexpr double kNotYet = std::numeric_limits<double>::quiet_NaN();

void check_times(const PassTimes& t, bool split) {
  const auto positive = [](double x) { return x > 0 && std::isfinite(x); };
  if (!positive(t.forward)) throw Error(fmt::format("evaluate_pipeline: forward time must be > 0, got {}", t.forward));
  if (!positive(t.backward))
    throw Error(fmt::format("evaluate_pipeline: backward time must be > 0, got {}", t.backward));
  if (!(t.weight >= 0) || !(t.weight < t.backward) || (split && !(t.weight > 0)))
    throw Error(fmt::format("evaluate_pipeline: weight-gradient time must be in (0, B) = (0, {}), got {}",
                            t.backward, t.weight));
  if (!(t.overlapped >= 0) || !std::isfinite(t.overlapped))
    throw Error(fmt::format("evaluate_pipeline: overlapped F&B time must be >= 0, got {}", t.overlapped));
}

/// End times by (model chunk, micro-batch) of forwards, of input gradients (B or a whole
/// backward) and of weight gradients; NaN until the pass has run.
class PassEnds {
public:
  PassEnds(int chunks, int micro_batches)
      : micro_batches_(micro_batches),
        forward_(static_cast<std::size_t>(chunks) * micro_batches, kNotYet),
        input_(forward_),
        weight_(forward_) {}

  /// When the pass can start as far as its inputs go; NaN if one is missing. Spelled out because
  /// std::max silently drops a NaN second argument.
  [[nodiscard]] double ready(Pass pass, int g, int j, int chunks) const {
    switch (pass) {
      case Pass::Forward: return g > 0 ? forward_[at(g - 1, j)] : 0.0;
      case Pass::Backward:
      case Pass::BackwardInput: {
        const double own = forward_[at(g, j)];
        const double gradient = g + 1 < chunks ? input_[at(g + 1, j)] : 0.0;
        return std::isnan(own) || std::isnan(gradient) ? kNotYet : std::max(own, gradient);
      }
      case Pass::BackwardWeight: return input_[at(g, j)];
    }
    return kNotYet;
  }
  void done(Pass pass, int g, int j, double end) {
    if (pass == Pass::Forward) forward_[at(g, j)] = end;
    if (pass == Pass::Backward || pass == Pass::BackwardInput) input_[at(g, j)] = end;
    if (pass == Pass::Backward || pass == Pass::BackwardWeight) weight_[at(g, j)] = end;
  }

private:
  [[nodiscard]] std::size_t at(int g, int j) const { return static_cast<std::size_t>(g) * micro_batches_ + j; }
  int micro_batches_;
  std::vector<double> forward_, input_, weight_;
};

double duration(Pass pass, const PassTimes& t) {
  switch (pass) {
    case Pass::Forward: return t.forward;
    case Pass::Backward: return t.backward;
    case Pass::BackwardInput: return t.backward - t.weight;
    case Pass::BackwardWeight: return t.weight;
  }
  return 0;
}

std::string pass_name(Pass pass) {
  switch (pass) {
    case Pass::Forward: return "forward";
    case Pass::Backward: return "backward";
    case Pass::BackwardInput: return "input-gradient backward";
    case Pass::BackwardWeight: return "weight-gradient pass";
  }
  return "?";
}

std::string step_label(const PipelineStep& step, int chunks_per_device) {
  const char* letter = step.pass == Pass::Forward ? "F" : step.pass == Pass::BackwardWeight ? "W" : "B";
  if (chunks_per_device == 1) return fmt::format("{}{}", letter, step.micro_batch);
  return fmt::format("{}{}.{}", letter, step.micro_batch, step.chunk);
}

}  // namespace

PipelineTimeline evaluate_pipeline(const PipelineScheduleType& type, const PipelineShape& shape, const PassTimes& t) {
  type.check(shape);
  check_times(t, type.splits_backward());
  const int p = shape.stages;
  const int chunks = type.model_chunks(shape);
  std::vector<std::vector<PipelineStep>> orders;
  for (int s = 0; s < p; ++s) orders.push_back(type.order(shape, s));
  PassEnds ends(chunks, shape.micro_batches);

  PipelineTimeline timeline;
  timeline.busy.assign(p, 0.0);
  timeline.intervals.resize(p);
  std::vector<std::size_t> next(p, 0);
  std::vector<double> free_at(p, 0.0);
  // Each sweep runs every stage as far as its inputs allow; a deadlock-free order finishes in at
  // most one sweep per pass.
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < p; ++s) {
      while (next[s] < orders[s].size()) {
        // A unit: one pass, or an overlapped pair run as one.
        const std::size_t first = next[s];
        const std::size_t last = orders[s][first].overlaps_next && first + 1 < orders[s].size() ? first + 1 : first;
        double ready = 0, work = 0;
        for (std::size_t i = first; i <= last; ++i) {
          const auto& step = orders[s][i];
          const double r = ends.ready(step.pass, type.place(shape, s, step.chunk).model_chunk, step.micro_batch, chunks);
          ready = std::isnan(r) || std::isnan(ready) ? kNotYet : std::max(ready, r);
          work += duration(step.pass, t);
        }
        if (std::isnan(ready)) break;
        if (last > first && t.overlapped > 0) work = t.overlapped;
        const double start = std::max(free_at[s], ready);
        const double end = start + work;
        for (std::size_t i = first; i <= last; ++i) {
          const auto& step = orders[s][i];
          ends.done(step.pass, type.place(shape, s, step.chunk).model_chunk, step.micro_batch, end);
          timeline.intervals[s].emplace_back(start, end);
        }
        timeline.busy[s] += work;
        free_at[s] = end;
        next[s] = last + 1;
        progress = true;
      }
    }
  }
  for (int s = 0; s < p; ++s)
    if (next[s] < orders[s].size()) {
      const auto& step = orders[s][next[s]];
      throw SimulationError(fmt::format("{} pipeline deadlocks: stage {} waits forever on the {} of micro-batch {} "
                                        "chunk {}",
                                        type.name(), s, pass_name(step.pass), step.micro_batch, step.chunk));
    }
  timeline.makespan = *std::max_element(free_at.begin(), free_at.end());
  double busy = 0;
  for (double b : timeline.busy) busy += b;
  timeline.bubble_fraction = 1.0 - busy / (p * timeline.makespan);
  return timeline;
}

std::string render_pipeline_schedule(const PipelineScheduleType& type, const PipelineShape& shape) {
  // Slots: a forward 1, a whole backward 2 (B and W 1 each), an overlapped F&B pair 3.
  const PassTimes t{1, 2, 1, 0};
  const PipelineTimeline timeline = evaluate_pipeline(type, shape, t);
  const auto slots = static_cast<std::size_t>(std::lround(timeline.makespan));
  const int v = type.chunks_per_device(shape);

  std::vector<std::vector<std::string>> rows(shape.stages, std::vector<std::string>(slots, "."));
  std::size_t width = 1;
  for (int s = 0; s < shape.stages; ++s) {
    const auto steps = type.order(shape, s);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto [start, end] = timeline.intervals[s][i];
      std::string label = step_label(steps[i], v);
      if (steps[i].overlaps_next && i + 1 < steps.size()) label += "+" + step_label(steps[i + 1], v);
      if (i > 0 && steps[i - 1].overlaps_next) continue;  // drawn with its partner
      width = std::max(width, label.size());
      for (auto k = static_cast<std::size_t>(std::lround(start)); k < static_cast<std::size_t>(std::lround(end)); ++k)
        rows[s][k] = label;
    }
  }
  std::string text = fmt::format("# {} pipeline: p = {} stages, m = {} micro-batches, {} chunk(s) per device\n",
                                 type.name(), shape.stages, shape.micro_batches, v);
  text += "# F forward, B backward (2 slots whole; 1 slot when split off its W), W weight gradients (1 slot)";
  text += v == 1 ? "; Fj: micro-batch j\n" : "; Fj.c: micro-batch j on the device's chunk c; X+Y: overlapped\n";
  const std::size_t label_width = fmt::format("stage {}", shape.stages - 1).size();
  for (int s = 0; s < shape.stages; ++s) {
    std::string line = fmt::format("{:<{}}:", fmt::format("stage {}", s), label_width);
    for (const auto& cell : rows[s]) line += fmt::format(" {:<{}}", cell, width);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    text += line + '\n';
  }
  text += fmt::format("bubble fraction: {:.4f} simulated, {:.4f} closed form {}\n", timeline.bubble_fraction,
                      ideal_bubble_fraction(type, shape, t), type.closed_form_text());
  return text;
}

}  // namespace clearfog::schedule
