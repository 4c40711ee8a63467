// Pipeline communication in plan_step: the tied embedding's gradient all-reduce between the first
// and last stage, scatter/gather of the activations sent between stages, and the last stage's wait
// for the first counted as drain.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "support/StepPlannerScenario.hpp"

using namespace clearfog;
using namespace clearfog::test::step_planner;
using test::LayerGemmsOnly;

TEST_CASE("parallel::plan_step: tied embedding gradients all-reduced between first and last stage",
          "[parallel][pipeline]") {
  const int p = 4, dp = 2;
  auto s = scenario(1, p, dp, 4);
  const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p * dp));
  const parallel::DeviceGrid grid(s.parallelism);
  // Only the word embedding is tied to the logits layer (the position embedding lives on stage 0).
  const double embedding_B = static_cast<double>(gpt(s).vocab_size) * gpt(s).hidden * 2;
  for (int d = 0; d < dp; ++d)
    for (int stage = 0; stage < p; ++stage) {
      double sent = 0;
      for (const auto& op : step.plan.ranks[grid.rank(d, stage, 0)].ops())
        if (op.name.find("embedding_grad") != std::string::npos)
          for (const auto& x : op.sends) sent += x.bytes;
      // A ring all-reduce over 2 ranks sends 2 (p-1)/p = 1 buffer per rank; middle stages send none.
      INFO("replica " << d << " stage " << stage);
      CHECK(sent == Approx(stage == 0 || stage == p - 1 ? embedding_B : 0.0));
    }
}

TEST_CASE("parallel::plan_step: scatter/gather sends 1/t of the activation and re-gathers it",
          "[parallel][pipeline]") {
  const int t = 2, p = 2, m = 3;
  auto s = scenario(t, p, 1, m);
  const double bsh_B = 1.0 * gpt(s).seq_length * gpt(s).hidden * 2;  // micro-batch 1, bf16
  const parallel::DeviceGrid grid(s.parallelism);
  struct Case {
    bool scatter_gather, sequence_parallel;
    double p2p_B;
    int regathers;  // all-gathers over a stage's tensor group per step: one per received tensor
  };
  for (const Case c : {Case{true, false, bsh_B / t, m}, Case{false, false, bsh_B, 0}, Case{true, true, bsh_B / t, 0},
                       Case{false, true, bsh_B / t, 0}}) {
    s.parallelism.scatter_gather = c.scatter_gather;
    s.parallelism.sequence_parallel = c.sequence_parallel;
    std::vector<Requested> log;
    const auto step = parallel::plan_step(s, LayerGemmsOnly{}, recording_collectives(t * p, log));
    INFO("scatter_gather " << c.scatter_gather << " sequence_parallel " << c.sequence_parallel);
    CHECK(step.p2p_bytes == Approx(c.p2p_B));
    // Stage 1 receives m activations, stage 0 m gradients; with sequence parallelism the
    // tensor-parallel all-gathers are the layers' own, so count only pipeline-side requests.
    for (int stage = 0; stage < p; ++stage) {
      int regathers = 0;
      for (const auto& op : step.plan.ranks[grid.rank(0, stage, 0)].ops())
        if (op.category == program::Category::PipelineComm && op.name.find(".allgather") != std::string::npos &&
            op.kind == program::OpKind::Exchange)
          ++regathers;
      // A ring all-gather over t ranks is t - 1 exchange steps.
      CHECK(regathers == c.regathers * (t - 1));
    }
    if (c.regathers > 0) {
      const auto [n, bytes] = requested(log, config::CollectiveOp::AllGather, grid.tensor_group(0, 1));
      CHECK(n == m);
      CHECK(bytes == Approx(m * bsh_B));
    }
  }
}

TEST_CASE("parallel::plan_step: the last stage's wait for the first is drain, not embedding all-reduce",
          "[parallel][pipeline]") {
  const int p = 4, m = 4;
  auto s = scenario(1, p, 1, m);
  const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p));
  const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
  const parallel::DeviceGrid grid(s.parallelism);
  // In 1F1B the last stage finishes its backward (p - 1) backward slots before the first stage.
  const auto backward_end = [&](int rank) {
    double end = 0;
    const auto& ops = step.plan.ranks[rank].ops();
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].category == program::Category::Backward) end = std::max(end, result.ops[rank][i].end_s);
    return end;
  };
  const int first = grid.rank(0, 0, 0), last = grid.rank(0, p - 1, 0);
  const double drain = backward_end(first) - backward_end(last);
  REQUIRE(drain > 0);
  double wait = 0, allreduce = 0;
  const auto& ops = step.plan.ranks[last].ops();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].name.find("embedding_grad.wait") != std::string::npos) wait += result.ops[last][i].duration_s();
    if (ops[i].name.find("embedding_grad.allreduce") != std::string::npos)
      allreduce += result.ops[last][i].duration_s();
  }
  // The network is (almost) free: the handshake holds the whole drain, the sum itself takes ~0.
  CHECK(wait == Approx(drain).epsilon(1e-4));
  CHECK(allreduce < 1e-3 * drain);
  const auto metrics = report::compute_step_metrics(s, step, result);
  CHECK(metrics.dp_exposed_s < 1e-3 * drain);
}

TEST_CASE("parallel::plan_step: with dp = 1 nothing is data-parallel — the tied embedding's sum is its own category",
          "[parallel][pipeline]") {
  // Megatron's embedding-gradient all-reduce sums the word embedding's two copies between the first
  // and last stage: pipeline traffic between two stages, not a data-parallel reduction (there is no
  // data-parallel group at dp = 1). Nor is the last layer's tensor-parallel all-reduce, which ends
  // after the last backward kernel.
  const int p = 4, m = 4;
  for (const int t : {1, 2}) {
    INFO("tp " << t);
    auto s = scenario(t, p, 1, m);
    s.platform = test::switch_platform(t * p, 100e9, 1e-6);  // a network the sum takes time on
    const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t * p));
    int sum_ops = 0;
    for (const auto& program : step.plan.ranks)
      for (const auto& op : program.ops()) {
        INFO(op.name);
        CHECK(op.category != program::Category::DataParallelComm);
        if (op.name.find("embedding_grad.allreduce") != std::string::npos) {
          CHECK(op.category == program::Category::TiedGradientComm);
          ++sum_ops;
        }
      }
    REQUIRE(sum_ops > 0);
    const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
    const auto metrics = report::compute_step_metrics(s, step, result);
    const parallel::DeviceGrid grid(s.parallelism);
    const int last = grid.rank(0, p - 1, 0);
    double sum_s = 0;
    for (program::OpIndex i = 0; i < step.plan.ranks[last].size(); ++i)
      if (step.plan.ranks[last].category(i) == program::Category::TiedGradientComm)
        sum_s += result.ops[last][i].duration_s();
    REQUIRE(sum_s > 0);
    CHECK(metrics.dp_comm_s == 0);
    CHECK(metrics.tied_comm_s == Approx(sum_s));
    // What follows the last backward is the tied sum, pipeline drain and the optimizer: no
    // data-parallel exposure.
    CHECK(metrics.dp_exposed_s == Approx(0).margin(1e-12));
  }
}
