#pragma once
// Pipeline-parallel schedules as pure functions, one registry entry per schedule (one file each,
// listed in PipelineSchedules.cpp): for each stage, the order in which it runs the forward and
// backward passes of the micro-batches on its model chunks — the backward whole, or split into an
// input-gradient pass (B) and a weight-gradient pass (W) by the zero-bubble schedules. Planners
// turn the order into ops, `clearfog schedule` prints it, parallelism.schedule names one.
// Equations and sources: docs/pipeline-schedules.md.
#include <string>
#include <string_view>
#include <vector>

namespace clearfog::schedule {

/// One pass of one micro-batch through one model chunk held by a stage.
struct PipelineStep {
  enum class Pass {
    Forward,
    Backward,        // input and weight gradients in one pass
    BackwardInput,   // B: the input gradients only, sent on at once
    BackwardWeight   // W: the weight gradients of an earlier B
  } pass = Pass::Forward;
  int micro_batch = 0;  // 0 … m-1
  int chunk = 0;        // model chunk on this device, 0 … chunks_per_device-1
  /// This pass and the next run as one overlapped unit (DualPipe's "F&B": a forward and a
  /// backward chunk of two micro-batches, each one's communication hidden behind the other's
  /// compute).
  bool overlaps_next = false;
};

struct PipelineShape {
  int stages = 1;          // p: pipeline-parallel degree
  int micro_batches = 1;   // m: per iteration, per pipeline
  int virtual_stages = 1;  // v: model chunks per device (interleaved only; 1 otherwise)
};

/// Where chunk c of a stage sits in the model: its model chunk (0 … model_chunks-1 in forward
/// order) and the direction of the micro-batches it serves (1: DualPipe's reverse pipeline).
struct ChunkPlace {
  int model_chunk = 0;
  int direction = 0;
};

/// Times of one model chunk's passes, in any one unit.
struct PassTimes {
  double forward = 1;     // F
  double backward = 2;    // B: the whole backward, input and weight gradients
  double weight = 0;      // W: the weight-gradient part of B, run apart where a schedule splits
  double overlapped = 0;  // F&B: a forward and a backward chunk run overlapped; 0 means F + B
};

/// One pipeline schedule. Implementations are stateless singletons in the registry.
class PipelineScheduleType {
public:
  virtual ~PipelineScheduleType() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// One line for `explain` and the docs: what it does and where it comes from.
  [[nodiscard]] virtual std::string_view summary() const = 0;
  /// Model chunks each device holds: v (interleaved), 2 (DualPipe), 1.
  [[nodiscard]] virtual int chunks_per_device(const PipelineShape& shape) const;
  /// Model chunks the model is cut into: p·v interleaved, p otherwise (DualPipe holds each twice).
  [[nodiscard]] virtual int model_chunks(const PipelineShape& shape) const;
  /// Micro-batch j's direction: 0 unless the schedule feeds both ends.
  [[nodiscard]] virtual int direction_of(const PipelineShape& shape, int micro_batch) const;
  [[nodiscard]] virtual ChunkPlace place(const PipelineShape& shape, int stage, int chunk) const;
  /// The stage holding model chunk g for the micro-batches of `direction`.
  [[nodiscard]] virtual int stage_of(const PipelineShape& shape, int model_chunk, int direction) const;
  /// v where none is given: 2 for interleaved, which needs v >= 2; 1 otherwise.
  [[nodiscard]] virtual int default_virtual_stages() const { return 1; }
  /// Whether backwards are split into B and W passes.
  [[nodiscard]] virtual bool splits_backward() const { return false; }
  /// Throws clearfog::Error naming the rule `shape` breaks (every count >= 1; v == 1 here).
  virtual void check(const PipelineShape& shape) const;
  /// The passes of `stage`, in order; the shape is already checked.
  [[nodiscard]] virtual std::vector<PipelineStep> order(const PipelineShape& shape, int stage) const = 0;
  /// The published idle time per device of one iteration, in the unit of `t`.
  [[nodiscard]] virtual double closed_form_bubble(const PipelineShape& shape, const PassTimes& t) const = 0;
  /// That formula as text, e.g. "(p-1)(F+B)", and its source.
  [[nodiscard]] virtual std::string_view closed_form_text() const = 0;
};

/// The registry, in the order the docs list them.
const std::vector<const PipelineScheduleType*>& pipeline_schedules();
/// nullptr when no schedule has that name.
const PipelineScheduleType* find_pipeline_schedule(std::string_view name);
/// The schedule of that name; throws clearfog::Error listing the names otherwise.
const PipelineScheduleType& pipeline_schedule(std::string_view name);
std::vector<std::string> pipeline_schedule_names();

/// type.order after checking the shape and the stage (throws clearfog::Error).
std::vector<PipelineStep> pipeline_order(const PipelineScheduleType& type, const PipelineShape& shape, int stage);

/// Largest number of (micro-batch, chunk) activations `stage` holds at once: forwards run whose
/// backward (or, split, whose weight pass) has not.
int max_in_flight(const PipelineScheduleType& type, const PipelineShape& shape, int stage);

/// max_in_flight in units of one micro-batch through p-th of the model, what activation memory is
/// proportional to: interleaved chunks are 1/v of that, DualPipe's a whole one.
double peak_activation_micro_batches(const PipelineScheduleType& type, const PipelineShape& shape, int stage);

/// Passes of chunks a device runs per iteration (m·v interleaved, m otherwise).
int chunk_passes_per_device(const PipelineScheduleType& type, const PipelineShape& shape);

/// Closed-form bubble as a fraction of the iteration: bubble / (bubble + work), the work being
/// chunk_passes_per_device · (F + B).
double ideal_bubble_fraction(const PipelineScheduleType& type, const PipelineShape& shape, const PassTimes& t);

}  // namespace clearfog::schedule
