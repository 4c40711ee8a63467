// Data-parallel iteration: gradient buckets and the overlap of their all-reduces with backward.
// Compute is priced by a compute-only model (GEMM FLOPs / R, everything else free) so that the
// iteration's compute time is the closed form of Korthikanti Eq. 7 divided by R.
#include <catch2/catch.hpp>

#include "engine/ForkedRun.hpp"
#include "parallel/DataParallelPlanner.hpp"
#include "report/StepMetrics.hpp"
#include "support/TestPlatforms.hpp"
#include "topology/ClusterTopology.hpp"
#include "workload/ModelFlops.hpp"

using namespace clearfog;

namespace {

constexpr double kRate = 100e12;  // FLOP/s of the compute-only model

class ComputeOnlyModel final : public kernels::KernelCostModel {
public:
  [[nodiscard]] kernels::KernelCost cost(const kernels::Kernel& k) const override {
    return {k.kind == kernels::KernelKind::Gemm ? k.flops / kRate : 0.0, kernels::Bound::Compute};
  }
  [[nodiscard]] std::string name() const override { return "compute-only"; }
};

double ring_all_reduce_s(int p, double n, double bandwidth_Bps, double alpha_s) {
  return 2.0 * (p - 1) * alpha_s + 2.0 * (p - 1) / p * n / bandwidth_Bps;
}

struct Run {
  parallel::StepPlan step;
  report::StepMetrics metrics;
};

Run simulate(const config::ScenarioSpec& s) {
  Run run;
  run.step = parallel::plan_data_parallel_step(s, ComputeOnlyModel{}, parallel::plain_ring_reduction(s.parallelism.dp));
  const auto result = engine::simulate_forked(topology::ClusterTopology::build(s.platform), run.step.plan);
  run.metrics = report::compute_step_metrics(s, run.step, result);
  return run;
}

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

/// Parameters: Megatron Eq. 2 plus the final layernorm (2h), which Eq. 2 leaves out.
double parameters(const config::WorkloadSpec& w) {
  return workload::megatron_parameter_count(w) + 2.0 * w.hidden;
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

TEST_CASE("parallel::DataParallel: gradients cover every parameter once", "[parallel]") {
  const auto s = scenario(4, 25e6);
  const auto step = parallel::plan_data_parallel_step(s, ComputeOnlyModel{}, parallel::plain_ring_reduction(s.parallelism.dp));
  CHECK(step.gradient_bytes == Approx(2.0 * parameters(s.workload)).epsilon(1e-12));
  double in_buckets = 0;
  for (const auto& b : step.buckets) in_buckets += b.bytes;
  CHECK(in_buckets == Approx(step.gradient_bytes).epsilon(1e-12));
  REQUIRE_NOTHROW(program::check_plan(step.plan));
}

TEST_CASE("parallel::DataParallel: one bucket cannot overlap, step = compute + all-reduce",
          "[parallel][simulation]") {
  for (int dp : {2, 4, 8}) {
    const auto s = scenario(dp, 1e12);
    const auto run = simulate(s);
    REQUIRE(run.step.buckets.size() == 1);
    const double compute_s = workload::model_flops_per_iteration(s.workload, s.global_batch_per_replica()) / kRate;
    const double all_reduce_s = ring_all_reduce_s(dp, 2.0 * parameters(s.workload), 100e9, 2e-6);
    INFO("dp = " << dp);
    CHECK(run.metrics.compute_busy_s == Approx(compute_s).epsilon(1e-6));
    CHECK(run.metrics.step_time_s == Approx(compute_s + all_reduce_s).epsilon(1e-3));
    CHECK(run.metrics.exposed_comm_s == Approx(all_reduce_s).epsilon(1e-3));
  }
}

TEST_CASE("parallel::DataParallel: many buckets hide communication behind backward", "[parallel][simulation]") {
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
