// 1F1B, PipeDream-Flush (Narayanan et al. 2021): p-s-1 warm-up forwards, then one forward and one
// backward in turn, then the remaining backwards; stage s holds min(p-s, m) micro-batches. Idle
// time per device (p-1)(F+B), as GPipe.
#include "schedule/PipelineSchedule.hpp"

#include <algorithm>

namespace clearfog::schedule {
namespace {

using Pass = PipelineStep::Pass;

class OneFOneBSchedule final : public PipelineScheduleType {
public:
  std::string_view name() const override { return "1f1b"; }
  std::string_view summary() const override {
    return "one forward, one backward (Narayanan et al., PipeDream-Flush, SC 2021); holds p - stage micro-batches";
  }
  std::vector<PipelineStep> order(const PipelineShape& shape, int stage) const override {
    const int m = shape.micro_batches;
    const int warmup = std::min(shape.stages - stage - 1, m);
    std::vector<PipelineStep> steps;
    for (int j = 0; j < warmup; ++j) steps.push_back({Pass::Forward, j, 0});
    for (int k = 0; k < m - warmup; ++k) {
      steps.push_back({Pass::Forward, warmup + k, 0});
      steps.push_back({Pass::Backward, k, 0});
    }
    for (int j = m - warmup; j < m; ++j) steps.push_back({Pass::Backward, j, 0});
    return steps;
  }
  double closed_form_bubble(const PipelineShape& shape, const PassTimes& t) const override {
    return (shape.stages - 1) * (t.forward + t.backward);
  }
  std::string_view closed_form_text() const override { return "(p-1)(F+B)"; }
};

}  // namespace

const PipelineScheduleType& one_f_one_b_schedule() {
  static const OneFOneBSchedule type;
  return type;
}

}  // namespace clearfog::schedule
