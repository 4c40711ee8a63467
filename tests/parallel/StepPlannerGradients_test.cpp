// Gradients in plan_step: the memory traffic of unfused gradient accumulation, and the data-parallel
// reduction overlapping backward only when asked to.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "support/StepPlannerScenario.hpp"

using namespace clearfog;
using namespace clearfog::test::step_planner;
using test::LayerGemmsOnly;

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

TEST_CASE("parallel::plan_step: unfused gradient accumulation adds 3e bytes per parameter per extra micro-batch",
          "[parallel]") {
  const int t = 2, m = 4;
  auto s = scenario(t, 1, 1, m);
  s.training.grad_accumulation_fusion = false;
  const auto step = parallel::plan_step(s, MemoryBoundOnly{}, parallel::plain_group_collectives(t));
  // Per micro-batch after the first, every parameter the rank holds is read twice and written once
  // in bf16: of a layer, the tensor-parallel shards of QKV (3h^2 + 3h), the projection (h^2), fc1
  // (hf + f) and fc2 (fh) and the replicated layernorms (2 x 2h) and row-parallel biases (2h); the
  // word embedding's shard (Vh/t) and the whole position embedding (sh); the final layernorm (2h).
  const auto& w = gpt(s);
  const double h = w.hidden, f = w.ffn_hidden, V = w.vocab_size, seq = w.seq_length;
  const double layer_params = (3 * h * h + 3 * h + h * h + h * f + f + f * h) / t + 6 * h;
  const double rank_params = w.layers * layer_params + V * h / t + seq * h + 2 * h;
  const double expected_s = (m - 1) * rank_params * 3 * 2 / MemoryBoundOnly::kBandwidth;
  CHECK(compute_time_s(step.plan.ranks[0], program::Category::Backward) == Approx(expected_s).epsilon(1e-9));

  s.training.grad_accumulation_fusion = true;
  const auto fused = parallel::plan_step(s, MemoryBoundOnly{}, parallel::plain_group_collectives(t));
  CHECK(compute_time_s(fused.plan.ranks[0], program::Category::Backward) == 0);
}

TEST_CASE("parallel::plan_step: without overlap the gradient reduction starts after the last backward",
          "[parallel]") {
  auto s = scenario(1, 1, 4, 2);
  s.training.bucket_size_B = 1;  // a bucket per layer: with overlap, the first one starts mid-backward
  for (const bool overlap : {true, false}) {
    s.training.overlap_grad_reduce = overlap;
    const auto step = parallel::plan_step(s, LayerGemmsOnly{}, parallel::plain_group_collectives(4));
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

TEST_CASE("parallel::plan_step: at chunk granularity each gradient bucket is ready when it is at layer granularity",
          "[parallel][granularity]") {
  // Fusing a chunk's layers into one op changes the event count, not the answer: a fused backward
  // run ends at the layer whose gradients close a DDP bucket, so every bucket's all-reduce starts
  // at the instant it starts with an op per layer, and as much of it hides behind the backward.
  auto s = scenario(1, 1, 4, 2);
  const auto& w = gpt(s);
  const double layer_B = (12.0 * w.hidden * w.hidden + 13.0 * w.hidden) * 2;  // a layer's bf16 gradients
  for (const double layers_per_bucket : {1.0, 2.5, 1000.0}) {
    s.training.bucket_size_B = layers_per_bucket * layer_B;
    std::vector<std::vector<double>> starts;  // per granularity: each all-reduce op's start on rank 0
    std::vector<double> steps;
    for (const bool fused : {false, true}) {
      parallel::PlanOptions options;
      options.fuse_chunk_layers = fused;
      const auto run = test::plan_and_run(s, LayerGemmsOnly{}, options);
      const auto& ops = run.step.plan.ranks[0].ops();
      auto& list = starts.emplace_back();
      for (std::size_t i = 0; i < ops.size(); ++i)
        if (ops[i].category == program::Category::DataParallelComm) list.push_back(run.result.ops[0][i].start_s);
      steps.push_back(run.metrics.step_time_s);
    }
    INFO(layers_per_bucket << " layers per bucket");
    REQUIRE(starts[0].size() == starts[1].size());
    for (std::size_t i = 0; i < starts[0].size(); ++i) CHECK(starts[1][i] == Approx(starts[0][i]).epsilon(1e-12));
    CHECK(steps[1] == Approx(steps[0]).epsilon(1e-12));
  }
}
