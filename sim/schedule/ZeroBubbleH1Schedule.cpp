// ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §3): 1F1B with each backward
// split into B (input gradients, sent upstream at once) and W (weight gradients). Stage s keeps
// up to s W passes pending, so the gradients run up the pipeline at B's pace and the later stages
// fill their end-of-iteration idle time with the W they put off; a stage never holds more than p
// micro-batches, 1F1B's peak. Idle time per device (p-1)(F+B-2W) with B the whole backward
// (DeepSeek-V3 report, Table 2, "ZB1P"; (p-1)(T_F+T_B-T_W) in the paper's B-only terms).
#include "schedule/PipelineSchedule.hpp"

#include <algorithm>
#include <deque>

namespace clearfog::schedule {
namespace {

using Pass = PipelineStep::Pass;

class ZeroBubbleH1Schedule final : public PipelineScheduleType {
public:
  std::string_view name() const override { return "zb-h1"; }
  std::string_view summary() const override {
    return "1F1B with backwards split into B and W, stage s deferring up to s W passes (Qi et al., Zero Bubble "
           "Pipeline Parallelism, ICLR 2024); holds at most p micro-batches";
  }
  bool splits_backward() const override { return true; }

  std::vector<PipelineStep> order(const PipelineShape& shape, int stage) const override {
    const int m = shape.micro_batches;
    const int warmup = std::min(shape.stages - stage - 1, m);
    std::vector<PipelineStep> steps;
    std::deque<int> pending;  // micro-batches whose B has run and W not
    const auto backward = [&](int j) {
      steps.push_back({Pass::BackwardInput, j, 0});
      pending.push_back(j);
      if (static_cast<int>(pending.size()) > stage) weight(steps, pending);
    };
    for (int j = 0; j < warmup; ++j) steps.push_back({Pass::Forward, j, 0});
    for (int k = 0; k < m - warmup; ++k) {
      steps.push_back({Pass::Forward, warmup + k, 0});
      backward(k);
    }
    for (int j = m - warmup; j < m; ++j) backward(j);
    while (!pending.empty()) weight(steps, pending);
    return steps;
  }

  double closed_form_bubble(const PipelineShape& shape, const PassTimes& t) const override {
    return (shape.stages - 1) * (t.forward + t.backward - 2 * t.weight);
  }
  std::string_view closed_form_text() const override {
    return "(p-1)(F+B-2W), B the whole backward (Qi et al. 2024; DeepSeek-V3 Table 2)";
  }

private:
  static void weight(std::vector<PipelineStep>& steps, std::deque<int>& pending) {
    steps.push_back({Pass::BackwardWeight, pending.front(), 0});
    pending.pop_front();
  }
};

}  // namespace

const PipelineScheduleType& zero_bubble_h1_schedule() {
  static const ZeroBubbleH1Schedule type;
  return type;
}

}  // namespace clearfog::schedule
