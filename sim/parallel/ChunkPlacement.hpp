#pragma once
// Which pipeline stages hold which model chunks, as the schedule places them. One model chunk is
// held by one stage per direction its micro-batches flow in: chunk k on stage k mod p (1F1B,
// interleaved), or on stages k and p-1-k (DualPipe, whose every parameter is held twice).
// The planner and the memory estimate read the placement from here (docs/pipeline-schedules.md).
#include <vector>

#include "schedule/PipelineSchedule.hpp"

namespace clearfog::parallel {

class ChunkPlacement {
public:
  ChunkPlacement(const schedule::PipelineScheduleType& type, const schedule::PipelineShape& shape);

  [[nodiscard]] int model_chunks() const { return static_cast<int>(holders_.size()); }
  [[nodiscard]] int chunks_per_device() const { return chunks_per_device_; }
  /// The stages holding model chunk k, one per direction, without repeats, ascending.
  [[nodiscard]] const std::vector<int>& holders(int model_chunk) const { return holders_.at(model_chunk); }
  /// The stage running model chunk k for the micro-batches of `direction`.
  [[nodiscard]] int stage(int model_chunk, int direction) const;
  /// Model chunk of stage s's local chunk c (the schedule's PipelineStep::chunk).
  [[nodiscard]] int model_chunk(int stage, int local_chunk) const;
  /// The direction micro-batch j flows in: 0 from stage 0, 1 from stage p-1 (DualPipe).
  [[nodiscard]] int direction_of(int micro_batch) const;
  /// Whether a model chunk is held twice (by two directions' stages): its gradients are summed
  /// between the copies before the optimizer step.
  [[nodiscard]] bool mirrored() const { return directions_ > 1; }

private:
  const schedule::PipelineScheduleType& type_;
  schedule::PipelineShape shape_;
  int chunks_per_device_ = 1;
  int directions_ = 1;
  std::vector<std::vector<int>> holders_;
};

}  // namespace clearfog::parallel
