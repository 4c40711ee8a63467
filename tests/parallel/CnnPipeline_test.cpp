// A CNN over a pipeline: ResNet-50's unequal blocks split in two stages of least maximal cost (the
// linear partition, found here by trying every cut), and the stages exchanging the tensor live at
// the cut: the activation forward, its gradient backward, b x channels x height x width each.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "parallel/BlockCosts.hpp"
#include "support/PlanRun.hpp"
#include "support/TestPlatforms.hpp"
#include "workload/WorkloadType.hpp"

using namespace clearfog;

namespace {

config::ScenarioSpec resnet_pipeline(int micro_batch, int micro_batches) {
  config::ScenarioSpec s;
  s.name = "resnet-50 pp 2";
  s.platform = test::switch_platform(2, 1e15, 0);
  s.workload = config::load_workload(std::string(CLEARFOG_SOURCE_DIR) + "/workloads/resnet-50.yaml");
  s.training.micro_batch = micro_batch;
  s.training.global_batch = micro_batch * micro_batches;
  s.training.precision = DType::fp16;
  s.training.optimizer = config::Optimizer::Sgd;
  s.parallelism.pp = 2;
  return s;
}

/// The channels and side of the tensor a ResNet-50 v1.5 block ends with.
std::pair<double, double> resnet50_output(const std::string& block) {
  if (block == "stem") return {64, 56};
  const int stage = block[5] - '0';  // "layer3.2"
  return {256.0 * (1 << (stage - 1)), 56.0 / (1 << (stage - 1))};
}

}  // namespace

TEST_CASE("parallel::plan_step: a CNN splits by cost over two stages and sends the cut tensor",
          "[parallel][pipeline][cnn]") {
  const int b = 8, m = 4;
  const auto s = resnet_pipeline(b, m);
  const test::ComputeOnlyModel costs;
  const auto run = test::plan_and_run(s, costs);
  const auto& step = run.step;

  // Every cut of the 18 blocks: the least maximal stage (ties: the later cut, as the greedy fill).
  const auto model = workload::describe(s);
  const auto times = parallel::BlockCosts(model, costs).block_times();
  const double total = std::accumulate(times.begin(), times.end(), 0.0);
  double best = total;
  std::size_t cut = 0;
  double prefix = 0;
  for (std::size_t c = 1; c < times.size(); ++c) {
    prefix += times[c - 1];
    const double worst = std::max(prefix, total - prefix);
    if (worst <= best) {
      best = worst;
      cut = c;
    }
  }
  REQUIRE(cut > 0);
  INFO("cut before " << model.blocks[cut].name);
  for (std::size_t k = 0; k < model.blocks.size(); ++k) CHECK(step.chunk_of_block[k] == (k < cut ? 0 : 1));
  // The blocks differ (the projecting first block of a stage, the head): unequal units.
  CHECK(*std::max_element(times.begin(), times.end()) > 1.5 * *std::min_element(times.begin(), times.end()));

  // The cut tensor, fp16, per micro-batch.
  const auto [channels, side] = resnet50_output(model.blocks[cut - 1].name);
  const double cut_B = b * channels * side * side * 2;
  CHECK(step.p2p_bytes == cut_B);
  for (int rank = 0; rank < 2; ++rank) {
    int sends = 0;
    for (const auto& op : step.plan.ranks[rank].ops())
      if (op.category == program::Category::PipelineComm)
        for (const auto& t : op.sends) {
          CHECK(t.bytes == cut_B);
          ++sends;
        }
    CHECK(sends == m);  // stage 0 sends m activations, stage 1 m gradients
  }
  CHECK(run.metrics.step_time_s > 0);
}
