// Gradient compression in the step planner: the collectives it asks for per bucket, the encode
// kernels on the compute stream, and the syncSGD identity (a method with no kernels and one
// all-reduce of the bucket gives the same plan and step, byte for byte).
#include <catch2/catch.hpp>

#include <cmath>

#include "compression/GradCompression.hpp"
#include "support/PlanRun.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;
using test::ComputeOnlyModel;

namespace {

config::ScenarioSpec scenario(int dp, const std::string& method, DType precision = DType::bf16) {
  config::ScenarioSpec s;
  s.name = "compression test";
  s.platform = test::switch_platform(dp, 100e9, 1e-6);
  s.workload = test::small_gpt();
  s.training.global_batch = 4 * dp;
  s.training.micro_batch = 2;
  s.training.precision = precision;
  s.training.bucket_size_B = 4e6;
  s.training.grad_compression.method = method;
  s.parallelism.dp = dp;
  return s;
}

struct Requested {
  config::CollectiveOp op;
  double bytes;
};

/// Plans `s` with plain collectives and records every data-parallel request (groups of dp ranks).
std::vector<Requested> requests(const config::ScenarioSpec& s, parallel::StepPlan* plan = nullptr) {
  auto plain = parallel::plain_group_collectives(s.platform.device_count());
  std::vector<Requested> seen;
  parallel::GroupCollectives logging{plain.endpoints, [&](config::CollectiveOp op, const std::vector<int>& members,
                                                         double bytes) {
                                       if (static_cast<int>(members.size()) == s.parallelism.dp)
                                         seen.push_back({op, bytes});
                                       return plain.request(op, members, bytes);
                                     }};
  auto step = parallel::plan_step(s, ComputeOnlyModel{}, logging);
  REQUIRE_NOTHROW(program::check_plan(step.plan));
  if (plan) *plan = std::move(step);
  return seen;
}

}  // namespace

TEST_CASE("parallel::plan_step, compression: cast to the training type lays out syncSGD's plan",
          "[parallel][compression][simulation]") {
  const auto none = test::plan_and_run(scenario(4, "none"), ComputeOnlyModel{});
  const auto cast = test::plan_and_run(scenario(4, "bf16"), ComputeOnlyModel{});
  REQUIRE(none.step.plan.ranks.size() == cast.step.plan.ranks.size());
  for (std::size_t r = 0; r < none.step.plan.ranks.size(); ++r) {
    const auto a = none.step.plan.ranks[r].ops(), b = cast.step.plan.ranks[r].ops();
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].name.str() == b[i].name.str());
      CHECK(a[i].duration_s == b[i].duration_s);
    }
  }
  CHECK(cast.metrics.step_time_s == none.metrics.step_time_s);
}

TEST_CASE("parallel::plan_step, compression: a free encode at the same width is syncSGD's step",
          "[parallel][compression][simulation]") {
  // fp16 under bf16 training: the casts are memory-bound (free in the compute-only model) and the
  // wire carries 2 bytes per element either way.
  const auto none = test::plan_and_run(scenario(4, "none"), ComputeOnlyModel{});
  const auto cast = test::plan_and_run(scenario(4, "fp16"), ComputeOnlyModel{});
  CHECK(cast.metrics.step_time_s == Approx(none.metrics.step_time_s).epsilon(1e-9));
  CHECK(cast.metrics.dp_comm_s == Approx(none.metrics.dp_comm_s).epsilon(1e-9));
}

TEST_CASE("parallel::plan_step, compression: per-bucket requests follow the method's closed form",
          "[parallel][compression]") {
  const int dp = 4;
  parallel::StepPlan plain;
  const auto none = requests(scenario(dp, "none"), &plain);
  REQUIRE(none.size() == plain.buckets.size());
  REQUIRE(plain.buckets.size() > 1);
  // signSGD: one all-gather of p * ceil(n/8) bytes per bucket, n = bucket bytes / 2 (bf16).
  const auto sign = requests(scenario(dp, "signsgd"));
  REQUIRE(sign.size() == plain.buckets.size());
  for (std::size_t b = 0; b < sign.size(); ++b) {
    CHECK(sign[b].op == config::CollectiveOp::AllGather);
    CHECK(sign[b].bytes == Approx(dp * std::ceil(plain.buckets[b].bytes / 2 / 8)));
  }
  // PowerSGD: two all-reduces per bucket (P then Q).
  const auto power = requests(scenario(dp, "powersgd"));
  CHECK(power.size() == 2 * plain.buckets.size());
  double power_B = 0, plain_B = 0;
  for (const auto& r : power) power_B += r.bytes;
  for (const auto& r : none) plain_B += r.bytes;
  CHECK(power_B < plain_B / 10);
}

TEST_CASE("parallel::plan_step, compression: encode ops queue on the compute stream during backward",
          "[parallel][compression]") {
  parallel::StepPlan step;
  requests(scenario(4, "powersgd"), &step);
  // The first bucket's encode runs before the last backward op of the rank: it competes with backward.
  const auto ops = step.plan.ranks[0].ops();
  std::size_t encode = ops.size(), last_backward = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string name(ops[i].name.str());
    if (name.find("powersgd.encode.b0") != std::string::npos && encode == ops.size()) encode = i;
    if (name.find(".bwd") != std::string::npos) last_backward = i;
  }
  REQUIRE(encode < ops.size());
  CHECK(ops[encode].stream == program::Stream::Compute);
  CHECK(encode < last_backward);
}
