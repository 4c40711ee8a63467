// DualPipe (DeepSeek-V3 technical report, 2024, §3.2.1, Figure 5): micro-batches enter from both
// ends of the pipeline. The model is cut into p chunks; device s holds chunk s for the micro-batches
// that start at device 0 (direction 0) and chunk p-1-s for those that start at device p-1
// (direction 1), so every parameter is held twice. Its chunk 0 is the one of the direction in
// which it is among the first p/2 devices. In the steady state a forward chunk of one micro-batch
// runs overlapped with a backward chunk of another ("F&B"), each one's all-to-all and pipeline
// traffic hidden behind the other's compute; the first and last phases split backwards into B and
// W to fill the gaps. Idle time per device (p/2-1)(F&B+B-3W) (report, Table 2), activations of
// p+1 chunk-micro-batches at most.
#include "schedule/PipelineSchedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>

#include "core/Errors.hpp"

namespace clearfog::schedule {
namespace {

using Pass = PipelineStep::Pass;

/// The passes of one device, written phase by phase.
class DualPipeOrder {
public:
  DualPipeOrder(const PipelineShape& shape, int stage)
      : half_micro_batches_(shape.micro_batches / 2),
        first_direction_(stage < shape.stages / 2 ? 0 : 1) {}

  void forward(int chunk, bool overlaps_next = false) {
    steps_.push_back({Pass::Forward, micro_batch(chunk, forwards_[chunk]++), chunk, overlaps_next});
  }
  void backward(int chunk, bool split) {
    const int j = micro_batch(chunk, backwards_[chunk]++);
    steps_.push_back({split ? Pass::BackwardInput : Pass::Backward, j, chunk});
    if (split) pending_.push_back({Pass::BackwardWeight, j, chunk});
  }
  void weight() {
    steps_.push_back(pending_.front());
    pending_.pop_front();
  }
  /// Forward of `forward_chunk` overlapped with the (whole) backward of the other chunk.
  void forward_backward(int forward_chunk) {
    forward(forward_chunk, true);
    backward(1 - forward_chunk, false);
  }
  std::vector<PipelineStep> finish() {
    while (!pending_.empty()) weight();
    return std::move(steps_);
  }

private:
  /// Direction d's k-th micro-batch: direction 0 takes 0 … m/2-1, direction 1 m/2 … m-1.
  [[nodiscard]] int micro_batch(int chunk, int k) const {
    const int direction = chunk == 0 ? first_direction_ : 1 - first_direction_;
    return direction * half_micro_batches_ + k;
  }

  int half_micro_batches_;
  int first_direction_;
  std::array<int, 2> forwards_{};
  std::array<int, 2> backwards_{};
  std::deque<PipelineStep> pending_;
  std::vector<PipelineStep> steps_;
};

class DualPipeSchedule final : public PipelineScheduleType {
public:
  std::string_view name() const override { return "dualpipe"; }
  std::string_view summary() const override {
    return "bidirectional pipeline with overlapped forward-and-backward chunks (DeepSeek-V3 report, §3.2.1); "
           "holds every stage twice, needs even p and m >= 2p, m even";
  }
  int chunks_per_device(const PipelineShape&) const override { return 2; }
  bool splits_backward() const override { return true; }  // in its first and last phases
  int model_chunks(const PipelineShape& shape) const override { return shape.stages; }
  int direction_of(const PipelineShape& shape, int micro_batch) const override {
    return micro_batch < shape.micro_batches / 2 ? 0 : 1;
  }
  ChunkPlace place(const PipelineShape& shape, int stage, int chunk) const override {
    const int p = shape.stages;
    const int first = stage < p / 2 ? 0 : 1;
    const int direction = chunk == 0 ? first : 1 - first;
    return {direction == 0 ? stage : p - 1 - stage, direction};
  }
  int stage_of(const PipelineShape& shape, int model_chunk, int direction) const override {
    return direction == 0 ? model_chunk : shape.stages - 1 - model_chunk;
  }

  void check(const PipelineShape& shape) const override {
    PipelineScheduleType::check(shape);
    const int p = shape.stages;
    const int m = shape.micro_batches;
    if (p % 2 != 0) throw Error(fmt::format("dualpipe pipeline: needs an even number of stages, got p = {}", p));
    if (m % 2 != 0 || m < 2 * p)
      throw Error(fmt::format("dualpipe pipeline: needs an even number of micro-batches, at least 2p = {}, got m = {}",
                              2 * p, m));
  }

  std::vector<PipelineStep> order(const PipelineShape& shape, int stage) const override {
    const int half = shape.stages / 2;
    const int h = std::min(stage, shape.stages - 1 - stage);  // distance from the nearer end
    const int edge = half - h - 1;                             // devices between it and the middle
    const bool middle = edge == 0;
    DualPipeOrder o(shape, stage);
    // 1. Warm up: forwards of chunk 0, two per device towards the middle.
    for (int i = 0; i < 2 * edge; ++i) o.forward(0);
    // 2. Forwards of both chunks in turn, until the other direction's first micro-batch arrives.
    for (int i = 0; i < h + 1; ++i) {
      o.forward(0);
      o.forward(1);
    }
    // 3. The first backwards of chunk 1, split so their gradients leave at once.
    for (int i = 0; i < edge; ++i) {
      o.backward(1, true);
      o.weight();
      o.forward(1);
    }
    // 4. Steady state: F&B pairs of both chunks. The middle devices run their first pair apart,
    //    which shortens the bubble (report, Figure 5).
    const int steady = shape.micro_batches / 2 - shape.stages + h + 1;
    for (int i = 0; i < steady; ++i) {
      if (i == 0 && middle) {
        o.forward(0);
        o.backward(1, false);
      } else {
        o.forward_backward(0);
      }
      o.forward_backward(1);
    }
    // 5. Chunk 1's backwards catch up while chunk 0 still has forwards.
    for (int i = 0; i < edge; ++i) {
      o.backward(1, false);
      o.forward_backward(1);
    }
    // 6. Backwards of both chunks; from the middle of this phase on, split.
    bool split = false;
    for (int i = 0; i < h + 1; ++i) {
      if (i == (h + 1) / 2 && h % 2 == 1) split = true;
      o.backward(1, split);
      if (i == (h + 1) / 2 && h % 2 == 0) split = true;
      o.backward(0, split);
    }
    // 7-8. The deferred weight passes fill the drain.
    for (int i = 0; i < edge; ++i) {
      o.weight();
      o.backward(0, true);
    }
    return o.finish();
  }

  double closed_form_bubble(const PipelineShape& shape, const PassTimes& t) const override {
    const double overlapped = t.overlapped > 0 ? t.overlapped : t.forward + t.backward;
    return (shape.stages / 2 - 1) * (overlapped + t.backward - 3 * t.weight);
  }
  std::string_view closed_form_text() const override {
    return "(p/2-1)(F&B+B-3W), B the whole backward (DeepSeek-V3 report, Table 2)";
  }
};

}  // namespace

const PipelineScheduleType& dualpipe_schedule() {
  static const DualPipeSchedule type;
  return type;
}

}  // namespace clearfog::schedule
