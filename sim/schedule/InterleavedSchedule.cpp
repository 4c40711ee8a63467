// Interleaved 1F1B (Narayanan et al. 2021, §2.2; Megatron-LM's
// forward_backward_pipelining_with_interleaving): each device holds v model chunks, chunk c of
// stage s being model chunk c·p + s; micro-batches go through the chunks in groups of p. With
// chunk times F and B the idle time per device is (p-1)(F+B), i.e. (p-1)/v of a stage's.
#include "schedule/PipelineSchedule.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/Errors.hpp"

namespace clearfog::schedule {
namespace {

using Pass = PipelineStep::Pass;

class InterleavedSchedule final : public PipelineScheduleType {
public:
  std::string_view name() const override { return "interleaved"; }
  std::string_view summary() const override {
    return "1F1B over v model chunks per device (Narayanan et al., SC 2021, §2.2); needs v >= 2 and m % p == 0";
  }
  int chunks_per_device(const PipelineShape& shape) const override { return shape.virtual_stages; }
  int default_virtual_stages() const override { return 2; }

  void check(const PipelineShape& shape) const override {
    PipelineScheduleType::check(PipelineShape{shape.stages, shape.micro_batches, 1});
    if (shape.stages < 2)
      throw Error(fmt::format("interleaved pipeline: needs at least 2 stages (pp >= 2), got p = {}", shape.stages));
    if (shape.virtual_stages < 2)
      throw Error(fmt::format("interleaved pipeline: needs at least 2 model chunks per device (v >= 2), got v = {}",
                              shape.virtual_stages));
    if (shape.micro_batches % shape.stages != 0)
      throw Error(fmt::format("interleaved needs the micro-batches per pipeline ({}) to be a multiple of pp {} "
                              "(Megatron-LM's rule)",
                              shape.micro_batches, shape.stages));
  }

  std::vector<PipelineStep> order(const PipelineShape& shape, int stage) const override {
    const int p = shape.stages;
    const int v = shape.virtual_stages;
    const int passes = shape.micro_batches * v;
    // The last stage needs (v-1)p forwards before the first backward comes back through all
    // chunks; each earlier stage two more, one for the forward and one for the backward trip.
    const int warmup = std::min(2 * (p - stage - 1) + (v - 1) * p, passes);
    std::vector<PipelineStep> steps;
    for (int k = 0; k < warmup; ++k) steps.push_back(nth(shape, Pass::Forward, k));
    for (int k = 0; k < passes - warmup; ++k) {
      steps.push_back(nth(shape, Pass::Forward, warmup + k));
      steps.push_back(nth(shape, Pass::Backward, k));
    }
    for (int k = passes - warmup; k < passes; ++k) steps.push_back(nth(shape, Pass::Backward, k));
    return steps;
  }

  double closed_form_bubble(const PipelineShape& shape, const PassTimes& t) const override {
    return (shape.stages - 1) * (t.forward + t.backward);
  }
  std::string_view closed_form_text() const override { return "(p-1)(F+B) with chunk times, (p-1)/v of a stage's"; }

private:
  /// The k-th forward or backward (Megatron's get_model_chunk_id): k = 0..p-1 chunk 0, p..2p-1
  /// chunk 1, ..., then the next group of p micro-batches; backwards walk the chunks in reverse.
  static PipelineStep nth(const PipelineShape& shape, Pass pass, int k) {
    const int p = shape.stages;
    const int v = shape.virtual_stages;
    const int in_group = k % (p * v);
    const int chunk = in_group / p;
    return {pass, k / (p * v) * p + in_group % p, pass == Pass::Forward ? chunk : v - 1 - chunk};
  }
};

}  // namespace

const PipelineScheduleType& interleaved_schedule() {
  static const InterleavedSchedule type;
  return type;
}

}  // namespace clearfog::schedule
