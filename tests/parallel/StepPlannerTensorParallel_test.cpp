// Tensor parallelism in plan_step: Megatron's collective counts and sizes per layer, for the
// embedding and the head, with full recomputation and with sequence parallelism.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "support/StepPlannerScenario.hpp"

using namespace clearfog;
using namespace clearfog::test::step_planner;
using test::LayerGemmsOnly;

TEST_CASE("parallel::plan_step: 2 all-reduces of b*s*h per layer forward and 2 backward", "[parallel]") {
  const int t = 4, m = 3;
  auto s = scenario(t, 1, 1, m);
  const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t));
  const double bsh_B = 1.0 * gpt(s).seq_length * gpt(s).hidden * 2;  // micro-batch 1, bf16
  // A ring all-reduce over t ranks is 2(t-1) exchange steps per rank, each sending 1/t of it.
  std::size_t exchanges = 0;
  for (const auto& op : step.plan.ranks[0].ops())
    if (op.category == program::Category::TensorParallelComm && op.kind == program::OpKind::Exchange &&
        layer_op(op.name)) {
      ++exchanges;
      REQUIRE(op.sends.size() == 1);
      CHECK(op.sends[0].bytes == Approx(bsh_B / t));
    }
  CHECK(exchanges == static_cast<std::size_t>(4 * gpt(s).layers * m * 2 * (t - 1)));

  SECTION("embedding and head: one all-reduce each of b*s*h, three of the loss's fp32 row statistics") {
    // Megatron-LM: the vocabulary-parallel embedding sums its output (forward), the logits layer's
    // input gradient is summed (backward), the vocabulary-parallel cross-entropy all-reduces the
    // row maximum, the target logit and the sum of exponentials (b*s fp32 each).
    std::map<std::string, double> sent;
    for (const auto& op : step.plan.ranks[0].ops())
      if (op.category == program::Category::TensorParallelComm && !layer_op(op.name))
        for (const auto& x : op.sends) sent[op.name.substr(0, op.name.rfind(".s"))] += x.bytes;
    const double ring = 2.0 * (t - 1) / t;
    CHECK(sent["mb0.embedding.fwd.tp.all_reduce"] == Approx(ring * bsh_B));
    CHECK(sent["mb0.head.bwd.tp.all_reduce"] == Approx(ring * bsh_B));
    CHECK(sent["mb0.head.fwd.ce.all_reduce"] == Approx(3 * ring * 4.0 * gpt(s).seq_length));
  }
  SECTION("full recomputation adds the forward's 2 all-reduces to backward") {
    s.training.recompute = config::Recompute::Full;
    const auto re = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t));
    std::size_t layer_exchanges = 0;
    for (const auto& op : re.plan.ranks[0].ops())
      if (op.category == program::Category::TensorParallelComm && op.kind == program::OpKind::Exchange &&
          layer_op(op.name))
        ++layer_exchanges;
    CHECK(layer_exchanges == exchanges * 6 / 4);
  }
  SECTION("per-op recomputation re-runs the forward's all-reduces, with sequence parallelism only its all-gathers") {
    // torchtitan's policy keeps reduce-scatter outputs (docs/recompute.md).
    s.training.recompute = config::Recompute::Op;
    const auto count = [&](const parallel::StepPlan& plan) {
      std::map<std::string, std::size_t> n;  // recompute collectives by operation
      for (const auto& op : plan.plan.ranks[0].ops())
        if (op.category == program::Category::TensorParallelComm && op.kind == program::OpKind::Exchange &&
            layer_op(op.name) && op.name.find(".re.") != std::string::npos)
          for (const char* kind : {"all_reduce", "reduce_scatter", "all_gather"})
            if (op.name.find(kind) != std::string::npos) ++n[kind];
      return n;
    };
    auto n = count(parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t)));
    CHECK(n["all_reduce"] == exchanges / 2);  // the forward's two of the layer's four
    CHECK(n["reduce_scatter"] + n["all_gather"] == 0);
    s.parallelism.sequence_parallel = true;
    n = count(parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t)));
    // a ring all-gather is t - 1 exchanges, two per layer forward
    CHECK(n["all_gather"] == static_cast<std::size_t>(2 * gpt(s).layers * m * (t - 1)));
    CHECK(n["reduce_scatter"] + n["all_reduce"] == 0);
  }
  SECTION("sequence parallelism: reduce-scatter + all-gather, same bytes per rank") {
    s.parallelism.sequence_parallel = true;
    const auto sp = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t));
    double sent = 0;
    for (const auto& op : sp.plan.ranks[0].ops())
      if (op.category == program::Category::TensorParallelComm && layer_op(op.name))
        for (const auto& x : op.sends) sent += x.bytes;
    CHECK(sent == Approx(4.0 * gpt(s).layers * m * 2.0 * (t - 1) / t * bsh_B));
  }
}
