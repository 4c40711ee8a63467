// Pipeline schedules in plan_step on a zero-cost network: the bubble of GPipe and 1F1B against
// (p-1)/(m+p-1), ZB-H1's and DualPipe's closed forms, and DualPipe's F&B pairs hiding tensor-parallel
// communication behind compute.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "support/StepPlannerScenario.hpp"

using namespace clearfog;
using namespace clearfog::test::step_planner;
using test::LayerGemmsOnly;

TEST_CASE("parallel::plan_step: zero-cost network, bubble = (p-1)/(m+p-1)", "[parallel][pipeline]") {
  for (const std::string kind : {"gpipe", "1f1b"}) {
    for (const auto& [p, m] : std::vector<std::pair<int, int>>{{2, 4}, {4, 8}}) {
      auto s = scenario(1, p, 1, m);
      s.parallelism.schedule = kind;
      const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p));
      const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
      const auto metrics = report::compute_step_metrics(s, step, result);
      const double expected = (p - 1.0) / (m + p - 1.0);
      INFO("schedule " << kind << " p " << p << " m " << m);
      CHECK(metrics.bubble_fraction == Approx(expected).epsilon(1e-3));
      CHECK(metrics.ideal_bubble_fraction == Approx(expected));
      // One vocabulary: the busiest device's idle time is pipeline waits plus exposed
      // communication; with free communication it is all pipeline waits.
      CHECK(metrics.idle_s == Approx(metrics.step_time_s - metrics.compute_busy_s));
      CHECK(metrics.pipeline_wait_s + metrics.exposed_comm_s == Approx(metrics.idle_s));
      CHECK(metrics.pipeline_wait_s > 0);
      CHECK(metrics.exposed_comm_s < 1e-3 * metrics.step_time_s);
    }
  }
}

TEST_CASE("parallel::plan_step: ZB-H1 on a zero-cost network idles (p-1)(F+B-2W), a third of 1F1B's",
          "[parallel][pipeline]") {
  // Only the layers' weight GEMMs cost time (fused attention is not a GEMM): each forward GEMM's
  // dgrad (B) and wgrad (W) take as long as it, F = B_input = W, the setting of Qi et al. 2024. Idle
  // (p-1)F against 3mF of work.
  for (const auto& [p, m] : std::vector<std::pair<int, int>>{{2, 4}, {4, 8}}) {
    auto s = scenario(1, p, 1, m);
    s.training.attention = config::Attention::Fused;
    s.parallelism.schedule = "zb-h1";
    const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p));
    const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
    const auto metrics = report::compute_step_metrics(s, step, result);
    const double expected = (p - 1.0) / (3.0 * m + p - 1.0);
    INFO("p " << p << " m " << m);
    CHECK(metrics.bubble_fraction == Approx(expected).epsilon(1e-3));
    CHECK(metrics.ideal_bubble_fraction == Approx(expected).epsilon(1e-9));
    // Same work as 1F1B, a shorter step.
    auto one_f_one_b = s;
    one_f_one_b.parallelism.schedule = "1f1b";
    const auto base = parallel::plan_step(one_f_one_b, LayerGemmsOnly{}, parallel::plain_group_collectives(p));
    const auto base_result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), base.plan);
    CHECK(result.makespan_s < base_result.makespan_s);
    CHECK(base_result.makespan_s - result.makespan_s ==
          Approx(2.0 / 3.0 * (p - 1) * (base_result.makespan_s / (m + p - 1.0))).epsilon(1e-3));
  }
}

TEST_CASE("parallel::plan_step: DualPipe on a zero-cost network idles (p/2-1)(F&B+B-3W) and sums the mirror copies",
          "[parallel][pipeline]") {
  // As for ZB-H1, F = B_input = W per chunk. With no communication to hide, an F&B pair takes
  // F + B = 3F; it receives both inputs first and sends both outputs at its end, as DualPipe's
  // unit does. Each device idles (p/2-1)(3F + 2F - 3F) = 2(p/2-1)F against m chunk passes of 3F.
  for (const auto& [p, m] : std::vector<std::pair<int, int>>{{2, 4}, {4, 8}, {4, 12}, {6, 12}}) {
    auto s = scenario(1, p, 1, m);
    s.workload = test::with_transformer(test::small_gpt(), [p = p](workload::TransformerSpec& w) { w.layers = 2 * p; });
    s.training.attention = config::Attention::Fused;
    s.parallelism.schedule = "dualpipe";
    const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p));
    const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
    const auto metrics = report::compute_step_metrics(s, step, result);
    const double idle = 2.0 * (p / 2 - 1), work = 3.0 * m;
    INFO("p " << p << " m " << m);
    CHECK(metrics.bubble_fraction == Approx(idle / (idle + work)).margin(1e-5));  // the network costs ~1e-6
    CHECK(metrics.ideal_bubble_fraction == Approx(idle / (idle + work)).margin(1e-9));

    // Stage s and p-1-s hold chunks s and p-1-s each: summed pair by pair, the mirror all-reduces
    // carry every parameter once (a 2-rank ring sends its whole payload, 2(2-1)/2 = 1).
    double mirrored_B = 0;
    for (int r = 0; r < p / 2; ++r)
      for (const auto& op : step.plan.ranks[r].ops())
        if (op.name.find("mirror_grad.allreduce") != std::string::npos)
          for (const auto& x : op.sends) mirrored_B += x.bytes;
    CHECK(mirrored_B == Approx(2.0 * workload::describe(s).parameters()));  // bf16 gradients
  }
}

TEST_CASE("parallel::plan_step: DualPipe's F&B pairs hide tensor-parallel communication behind compute",
          "[parallel][pipeline]") {
  // tp 2 on a switch whose all-reduce of a layer's b*s*h takes about as long as a layer GEMM. With
  // the pairs interleaved, a collective of one pass runs behind the other's compute: the step is
  // shorter than with the passes in turn, by no more than the communication the pairs carry along
  // the pipeline (each collective is hidden once at most), and no shorter than with free
  // communication.
  const int t = 2, p = 4, m = 8;
  auto s = scenario(t, p, 1, m);
  s.training.attention = config::Attention::Fused;
  s.parallelism.schedule = "dualpipe";
  s.platform = test::switch_platform(t * p, 1e11, 0);
  const auto run = [&](const config::ScenarioSpec& sc, bool overlap) {
    parallel::PlanOptions options;
    options.overlap_forward_backward = overlap;
    const auto step = parallel::plan_step(sc, LayerGemmsOnly{}, parallel::plain_group_collectives(t * p), options);
    return std::pair{step, engine::simulate_forked(topology::ClusterTopology::build(sc.platform), step.plan)};
  };
  const auto [overlapped, with_overlap] = run(s, true);
  const auto [in_turn, without_overlap] = run(s, false);
  auto free = s;
  free.platform = test::switch_platform(t * p, 1e15, 0);
  const auto free_network = run(free, true).second;

  // In a pair, every collective is on the communication stream; in turn, on the compute stream.
  const auto paired_comm_s = [](const parallel::StepPlan& step, const engine::SimulationResult& result, int rank) {
    double total = 0;
    const auto& ops = step.plan.ranks[rank].ops();
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].category == program::Category::TensorParallelComm && ops[i].stream == program::Stream::Comm)
        total += result.ops[rank][i].duration_s();
    return total;
  };
  double hidden_at_most = 0;  // the pairs' collectives of tensor rank 0 of every stage
  for (int stage = 0; stage < p; ++stage) hidden_at_most += paired_comm_s(overlapped, with_overlap, stage * t);
  CHECK(hidden_at_most > 0);
  CHECK(paired_comm_s(in_turn, without_overlap, 0) == 0);
  CHECK(with_overlap.makespan_s < without_overlap.makespan_s);
  CHECK(without_overlap.makespan_s - with_overlap.makespan_s <= hidden_at_most * (1 + 1e-9));
  CHECK(with_overlap.makespan_s >= free_network.makespan_s);

  // The summary splits the pairs' collectives into the part the compute stream waits for and the
  // part that ran behind compute; in turn, nothing runs behind compute.
  const auto metrics = report::compute_step_metrics(s, overlapped, with_overlap);
  CHECK(metrics.tp_hidden_s > 0);
  double most_paired = 0;
  for (int r = 0; r < t * p; ++r) most_paired = std::max(most_paired, paired_comm_s(overlapped, with_overlap, r));
  CHECK(metrics.tp_hidden_s <= most_paired * (1 + 1e-9));
  CHECK(report::compute_step_metrics(s, in_turn, without_overlap).tp_hidden_s == 0);
}
