// Data-parallel iteration: gradient buckets and the overlap of their all-reduces with backward.
// Compute is priced by a compute-only model (GEMM FLOPs / R, everything else free) so that the
// iteration's compute time is the closed form of Korthikanti Eq. 7 divided by R.
#include <catch2/catch.hpp>

#include "support/PlanRun.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;
using test::ComputeOnlyModel;

namespace {

constexpr double kRate = test::kGemmRate;

double ring_all_reduce_s(int p, double n, double bandwidth_Bps, double alpha_s) {
  return 2.0 * (p - 1) * alpha_s + 2.0 * (p - 1) / p * n / bandwidth_Bps;
}

test::PlanRun simulate(const config::ScenarioSpec& s) { return test::plan_and_run(s, ComputeOnlyModel{}); }

/// micro_batch 8 makes one micro-batch's backward (~1 ms at kRate) long enough to hide the
/// gradient all-reduce (26 MB at 100 GB/s, ~0.5 ms) once it is split into buckets.
config::ScenarioSpec scenario(int dp, double bucket_B, int micro_batch = 2) {
  config::ScenarioSpec s;
  s.name = "dp test";
  s.platform = test::switch_platform(dp, 100e9, 1e-6);
  s.workload = test::small_gpt();
  s.training.global_batch = 2 * micro_batch * dp;
  s.training.micro_batch = micro_batch;
  s.training.precision = DType::bf16;
  s.training.bucket_size_B = bucket_B;
  s.parallelism.dp = dp;
  return s;
}

/// Parameters: Megatron SC21 Eq. 2, P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)), plus the final
/// layernorm (2h), which Eq. 2 leaves out.
double parameters(const config::WorkloadSpec& workload) {
  const auto& w = test::transformer(workload);
  const double l = w.layers, s = w.seq_length, h = w.hidden, V = w.vocab_size;
  return 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h)) + 2 * h;
}

/// Korthikanti Eq. 7: model FLOPs of an iteration over `B` sequences.
double eq7_flops(const config::WorkloadSpec& workload, double B) {
  const auto& w = test::transformer(workload);
  const double l = w.layers, s = w.seq_length, h = w.hidden, V = w.vocab_size;
  return 72 * B * l * s * h * h * (1 + s / (6 * h) + V / (12 * h * l));
}

}  // namespace

TEST_CASE("parallel::GradientBuckets: buckets close at the cap and never split a tensor", "[parallel]") {
  std::vector<parallel::GradientTensor> t = {{"a", 10, 0}, {"b", 10, 0}, {"c", 25, 1}, {"d", 5, 2}, {"e", 1, 3}};
  const auto b = parallel::make_gradient_buckets(t, 20);
  REQUIRE(b.size() == 3);
  CHECK(b[0].bytes == 20);
  CHECK(b[0].ready_slot == 0);
  CHECK(b[1].bytes == 25);  // one tensor larger than the cap gets a bucket of its own
  CHECK(b[1].ready_slot == 1);
  CHECK(b[2].bytes == 6);   // the remainder
  CHECK(b[2].ready_slot == 3);
  CHECK(parallel::make_gradient_buckets(t, 1e9).size() == 1);
}

TEST_CASE("parallel::plan_step, data parallel: gradients cover every parameter once", "[parallel]") {
  const auto s = scenario(4, 25e6);
  const auto step = parallel::plan_step(s, ComputeOnlyModel{}, parallel::plain_group_collectives(s.parallelism.dp));
  CHECK(step.gradient_bytes == Approx(2.0 * parameters(s.workload)).epsilon(1e-12));
  double in_buckets = 0;
  for (const auto& b : step.buckets) in_buckets += b.bytes;
  CHECK(in_buckets == Approx(step.gradient_bytes).epsilon(1e-12));
  REQUIRE_NOTHROW(program::check_plan(step.plan));
}

TEST_CASE("parallel::plan_step, data parallel: one bucket cannot overlap, step = compute + all-reduce",
          "[parallel][simulation]") {
  for (int dp : {2, 4, 8}) {
    const auto s = scenario(dp, 1e12);
    const auto run = simulate(s);
    REQUIRE(run.step.buckets.size() == 1);
    const double compute_s = eq7_flops(s.workload, s.global_batch_per_replica()) / kRate;
    const double all_reduce_s = ring_all_reduce_s(dp, 2.0 * parameters(s.workload), 100e9, 2e-6);
    INFO("dp = " << dp);
    CHECK(run.metrics.compute_busy_s == Approx(compute_s).epsilon(1e-6));
    CHECK(run.metrics.step_time_s == Approx(compute_s + all_reduce_s).epsilon(1e-3));
    CHECK(run.metrics.exposed_comm_s == Approx(all_reduce_s).epsilon(1e-3));
  }
}

TEST_CASE("parallel::plan_step, data parallel: many buckets hide communication behind backward", "[parallel][simulation]") {
  const int dp = 8;
  const auto one = simulate(scenario(dp, 1e12, 8));
  const auto many = simulate(scenario(dp, 4e6, 8));
  REQUIRE(many.step.buckets.size() > 4);
  CHECK(many.metrics.exposed_comm_s < one.metrics.exposed_comm_s);
  CHECK(many.metrics.step_time_s < one.metrics.step_time_s);
  // The last bucket (it holds the embedding) is ready only when backward ends: its all-reduce
  // can never be hidden, which bounds the exposed time from below.
  const double last_s = ring_all_reduce_s(dp, many.step.buckets.back().bytes, 100e9, 2e-6);
  CHECK(many.metrics.exposed_comm_s >= last_s * (1 - 1e-3));
  // Total communication is the same data in more messages: at least the one-bucket time.
  CHECK(many.metrics.dp_comm_s >= one.metrics.dp_comm_s * (1 - 1e-3));
}
