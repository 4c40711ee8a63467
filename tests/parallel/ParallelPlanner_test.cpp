// Tensor x pipeline x data parallelism: collective counts and sizes from Megatron's closed forms,
// the pipeline bubble on a zero-cost network against (p-1)/(m+p-1), and the device grid.
#include <catch2/catch.hpp>

#include "engine/ForkedRun.hpp"
#include "parallel/ParallelPlanner.hpp"
#include "report/StepMetrics.hpp"
#include "support/TestPlatforms.hpp"
#include "topology/ClusterTopology.hpp"

using namespace clearfog;

namespace {

constexpr double kRate = 100e12;  // FLOP/s

/// Prices the GEMMs of the transformer layers only: embedding, head and memory-bound kernels are
/// free, so every pipeline stage does the same work and the bubble has its closed form.
class LayerGemmsOnly final : public kernels::KernelCostModel {
public:
  [[nodiscard]] kernels::KernelCost cost(const kernels::Kernel& k) const override {
    const bool layer_gemm = k.kind == kernels::KernelKind::Gemm && k.name.rfind("logits", 0) != 0;
    return {layer_gemm ? k.flops / kRate : 0.0, kernels::Bound::Compute};
  }
  [[nodiscard]] std::string name() const override { return "layer-gemms-only"; }
};

config::ScenarioSpec scenario(int tp, int pp, int dp, int micro_batches) {
  config::ScenarioSpec s;
  s.name = "3d test";
  s.platform = test::switch_platform(tp * pp * dp, 1e15, 0);  // huge bandwidth, zero latency
  s.workload = test::small_gpt();
  s.workload.layers = 8;
  s.training.micro_batch = 1;
  s.training.global_batch = micro_batches * dp;
  s.parallelism.tp = tp;
  s.parallelism.pp = pp;
  s.parallelism.dp = dp;
  return s;
}

std::size_t count_ops(const program::RankProgram& p, program::Category c, program::OpKind kind) {
  std::size_t n = 0;
  for (const auto& op : p.ops())
    if (op.category == c && op.kind == kind) ++n;
  return n;
}

}  // namespace

TEST_CASE("parallel::DeviceGrid: tp varies fastest by default, order selectable", "[parallel]") {
  config::ParallelismSpec p;
  p.tp = 2;
  p.pp = 3;
  p.dp = 4;
  const parallel::DeviceGrid grid(p);
  CHECK(grid.rank(0, 0, 1) == 1);
  CHECK(grid.rank(0, 1, 0) == 2);
  CHECK(grid.rank(1, 0, 0) == 6);
  CHECK(grid.coordinates(grid.rank(3, 2, 1)) == std::array<int, 3>{3, 2, 1});
  p.order = {config::ParallelAxis::Data, config::ParallelAxis::Pipeline, config::ParallelAxis::Tensor};
  const parallel::DeviceGrid flipped(p);
  CHECK(flipped.rank(1, 0, 0) == 1);
  CHECK(flipped.rank(0, 0, 1) == 12);
}

TEST_CASE("parallel::plan_parallel_step: 2 all-reduces of b*s*h per layer forward and 2 backward", "[parallel]") {
  const int t = 4, m = 3;
  auto s = scenario(t, 1, 1, m);
  const auto step = parallel::plan_parallel_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t));
  const double bsh_B = 1.0 * s.workload.seq_length * s.workload.hidden * 2;  // bf16
  CHECK(step.tp_bytes_per_collective == Approx(bsh_B));
  CHECK(step.tp_collectives_per_layer == 4);
  // A ring all-reduce over t ranks is 2(t-1) exchange steps per rank.
  const std::size_t exchanges = count_ops(step.plan.ranks[0], program::Category::TensorParallelComm,
                                          program::OpKind::Exchange);
  CHECK(exchanges == static_cast<std::size_t>(4 * s.workload.layers * m * 2 * (t - 1)));
  for (const auto& op : step.plan.ranks[0].ops())
    if (op.category == program::Category::TensorParallelComm && op.kind == program::OpKind::Exchange) {
      REQUIRE(op.sends.size() == 1);
      CHECK(op.sends[0].bytes == Approx(bsh_B / t));
    }

  SECTION("full recomputation adds the forward's 2 all-reduces to backward") {
    s.training.recompute = config::Recompute::Full;
    const auto re = parallel::plan_parallel_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t));
    CHECK(re.tp_collectives_per_layer == 6);
    CHECK(count_ops(re.plan.ranks[0], program::Category::TensorParallelComm, program::OpKind::Exchange) ==
          exchanges * 6 / 4);
  }
  SECTION("sequence parallelism: reduce-scatter + all-gather, same bytes per rank") {
    s.parallelism.sequence_parallel = true;
    const auto sp = parallel::plan_parallel_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(t));
    double sent = 0;
    for (const auto& op : sp.plan.ranks[0].ops())
      if (op.category == program::Category::TensorParallelComm)
        for (const auto& x : op.sends) sent += x.bytes;
    CHECK(sent == Approx(4.0 * s.workload.layers * m * 2.0 * (t - 1) / t * bsh_B));
  }
}

TEST_CASE("parallel::plan_parallel_step: zero-cost network, bubble = (p-1)/(m+p-1)", "[parallel][pipeline]") {
  for (const auto kind : {config::PipelineSchedule::GPipe, config::PipelineSchedule::OneFOneB}) {
    for (const auto& [p, m] : std::vector<std::pair<int, int>>{{2, 4}, {4, 8}}) {
      auto s = scenario(1, p, 1, m);
      s.parallelism.schedule = kind;
      const auto step = parallel::plan_parallel_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p));
      const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
      const auto metrics = report::compute_step_metrics(s, step, result);
      const double expected = (p - 1.0) / (m + p - 1.0);
      INFO("schedule " << config::pipeline_schedule_key_name(kind) << " p " << p << " m " << m);
      CHECK(metrics.bubble_fraction == Approx(expected).epsilon(1e-3));
      CHECK(metrics.ideal_bubble_fraction == Approx(expected));
    }
  }
}

namespace {

/// Prices memory-bound kernels at bytes / kBandwidth and everything else at 0: isolates the
/// gradient-accumulation kernels.
class MemoryBoundOnly final : public kernels::KernelCostModel {
public:
  static constexpr double kBandwidth = 1e12;  // B/s
  [[nodiscard]] kernels::KernelCost cost(const kernels::Kernel& k) const override {
    const bool accumulate = k.name.rfind("grad_accumulate", 0) == 0;
    return {accumulate ? k.bytes / kBandwidth : 0.0, kernels::Bound::Memory};
  }
  [[nodiscard]] std::string name() const override { return "accumulation-only"; }
};

double compute_time_s(const program::RankProgram& p, program::Category c) {
  double total = 0;
  for (const auto& op : p.ops())
    if (op.kind == program::OpKind::Compute && op.category == c) total += op.duration_s;
  return total;
}

}  // namespace

TEST_CASE("parallel::plan_parallel_step: unfused gradient accumulation adds 3e bytes per parameter per extra micro-batch",
          "[parallel]") {
  const int t = 2, m = 4;
  auto s = scenario(t, 1, 1, m);
  s.training.grad_accumulation_fusion = false;
  const auto step = parallel::plan_parallel_step(s, MemoryBoundOnly{}, parallel::plain_group_collectives(t));
  // Per micro-batch after the first, every weight of the rank's shard (layers and the embedding) is
  // read twice and written once in bf16.
  const auto& w = s.workload;
  const double h = w.hidden, f = w.ffn_hidden;
  const double layer_params = 4 * h * h + 2 * h * f + 9 * h + f;  // 12h^2 + 13h at f = 4h
  const double embedding_params = static_cast<double>(w.vocab_size) * h + static_cast<double>(w.seq_length) * h;
  const double expected_s =
      (m - 1) * (w.layers * layer_params + embedding_params) / t * 3 * 2 / MemoryBoundOnly::kBandwidth;
  CHECK(compute_time_s(step.plan.ranks[0], program::Category::Backward) == Approx(expected_s).epsilon(1e-9));

  s.training.grad_accumulation_fusion = true;
  const auto fused = parallel::plan_parallel_step(s, MemoryBoundOnly{}, parallel::plain_group_collectives(t));
  CHECK(compute_time_s(fused.plan.ranks[0], program::Category::Backward) == 0);
}

TEST_CASE("parallel::plan_parallel_step: tied embedding gradients all-reduced between first and last stage",
          "[parallel][pipeline]") {
  const int p = 4, dp = 2;
  auto s = scenario(1, p, dp, 4);
  const auto step = parallel::plan_parallel_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(p * dp));
  const parallel::DeviceGrid grid(s.parallelism);
  const double embedding_B = static_cast<double>(s.workload.vocab_size + s.workload.seq_length) * s.workload.hidden * 2;
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

TEST_CASE("parallel::plan_parallel_step: without overlap the gradient reduction starts after the last backward",
          "[parallel]") {
  auto s = scenario(1, 1, 4, 2);
  s.training.bucket_size_B = 1;  // a bucket per layer: with overlap, the first one starts mid-backward
  for (const bool overlap : {true, false}) {
    s.training.overlap_grad_reduce = overlap;
    const auto step = parallel::plan_parallel_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(4));
    const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), step.plan);
    double last_backward_end = 0, first_reduce_start = 1e300;
    const auto& ops = step.plan.ranks[0].ops();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const auto& timing = result.ops[0][i];
      if (ops[i].category == program::Category::Backward) last_backward_end = std::max(last_backward_end, timing.end_s);
      if (ops[i].category == program::Category::DataParallelComm)
        first_reduce_start = std::min(first_reduce_start, timing.start_s);
    }
    INFO("overlap " << overlap);
    if (overlap)
      CHECK(first_reduce_start < last_backward_end);
    else
      CHECK(first_reduce_start >= last_backward_end);
  }
}
