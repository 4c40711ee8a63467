// Step metrics from a hand-built timeline: which communication counts as hidden and which as exposed.
#include <catch2/catch.hpp>

#include "report/StepMetrics.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;

TEST_CASE("report::StepMetrics: tensor-parallel time is exposed, not hidden gradient reduction", "[report]") {
  config::ScenarioSpec s;
  s.name = "metrics";
  s.platform = test::switch_platform(2, 1e12, 0);
  s.workload = test::small_gpt();
  s.training.micro_batch = 1;
  s.training.global_batch = 1;
  s.parallelism.tp = 2;
  parallel::StepPlan step;
  step.tp = 2;
  step.micro_batches = 1;
  step.plan.ranks.resize(2);
  engine::SimulationResult result;
  result.ops.resize(2);
  // Both ranks: backward [0, 0.4], a tensor-parallel all-reduce [0.4, 0.6] on the compute stream,
  // backward [0.6, 1.0], the gradient reduction [0.5, 1.3] on the comm stream, optimizer [1.3, 1.4].
  struct Span {
    Stream stream;
    Category category;
    bool exchange;
    double start_s, end_s;
  };
  const std::vector<Span> spans = {{Stream::Compute, Category::Backward, false, 0.0, 0.4},
                                   {Stream::Compute, Category::TensorParallelComm, true, 0.4, 0.6},
                                   {Stream::Compute, Category::Backward, false, 0.6, 1.0},
                                   {Stream::Comm, Category::DataParallelComm, true, 0.5, 1.3},
                                   {Stream::Compute, Category::Optimizer, false, 1.3, 1.4}};
  for (int r = 0; r < 2; ++r) {
    for (const auto& sp : spans) {
      if (sp.exchange)
        step.plan.ranks[r].add_exchange(sp.stream, sp.category, "x", {}, {});
      else
        step.plan.ranks[r].add_compute(sp.stream, sp.category, "c", sp.end_s - sp.start_s);
      result.ops[r].push_back({sp.start_s, sp.end_s});
    }
  }
  result.makespan_s = 1.4;
  const auto m = report::compute_step_metrics(s, step, result);
  const double busy = 0.4 + 0.4 + 0.1;
  CHECK(m.compute_busy_s == Approx(busy));
  CHECK(m.exposed_comm_s == Approx(1.4 - busy));   // the all-reduce and the reduction's tail
  CHECK(m.tp_comm_s == Approx(0.2));
  CHECK(m.dp_comm_s == Approx(0.8));
  CHECK(m.dp_exposed_s == Approx(1.4 - 1.0 - 0.1));  // after the last backward, outside the optimizer
  CHECK(m.hidden_comm_s == Approx(0.8 - 0.3));       // [0.5, 1.0] ran under the backward
}
