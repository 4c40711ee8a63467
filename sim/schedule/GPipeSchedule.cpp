// GPipe (Huang et al. 2019): every forward, then every backward; the stage holds all m
// micro-batches' activations. Idle time per device (p-1)(F+B).
#include "schedule/PipelineSchedule.hpp"

namespace clearfog::schedule {
namespace {

class GPipeSchedule final : public PipelineScheduleType {
public:
  std::string_view name() const override { return "gpipe"; }
  std::string_view summary() const override {
    return "all forwards, then all backwards (Huang et al., GPipe, NeurIPS 2019); holds m micro-batches";
  }
  std::vector<PipelineStep> order(const PipelineShape& shape, int) const override {
    std::vector<PipelineStep> steps;
    for (int j = 0; j < shape.micro_batches; ++j) steps.push_back({PipelineStep::Pass::Forward, j, 0});
    for (int j = 0; j < shape.micro_batches; ++j) steps.push_back({PipelineStep::Pass::Backward, j, 0});
    return steps;
  }
  double closed_form_bubble(const PipelineShape& shape, const PassTimes& t) const override {
    return (shape.stages - 1) * (t.forward + t.backward);
  }
  std::string_view closed_form_text() const override { return "(p-1)(F+B)"; }
};

}  // namespace

const PipelineScheduleType& gpipe_schedule() {
  static const GPipeSchedule type;
  return type;
}

}  // namespace clearfog::schedule
