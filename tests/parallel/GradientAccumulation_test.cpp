// How micro-batches' gradients are summed without accumulation fusion (parallel/GradientAccumulation):
// the bytes per element and the share of a tensor each case reads and writes.
#include <catch2/catch.hpp>

#include "config/FrameworkRegistry.hpp"
#include "parallel/GradientAccumulation.hpp"
#include "support/StepPlannerScenario.hpp"

using namespace clearfog;

TEST_CASE("parallel::gradient_accumulation: what each sharding sums, in which dtype", "[parallel]") {
  auto s = test::step_planner::scenario(1, 2, 4, 4);
  s.training.grad_accumulation_fusion = false;
  s.framework.gradient_reduce_dtype = DType::fp32;

  SECTION("replicated gradients: the whole tensor in bf16, grad += new") {
    const auto a = parallel::gradient_accumulation(s);
    CHECK(a.active);
    CHECK(a.bytes_per_element() == 3 * 2);
    CHECK(a.dense_share == 1);
    CHECK(a.first_share == 0);
    CHECK(a.mean_share(4) == Approx(3.0 / 4));
  }
  SECTION("ZeRO-3 reducing every micro-batch: the device's shard of the reduced fp32 gradient") {
    s.parallelism.zero_stage = 3;
    const auto a = parallel::gradient_accumulation(s);
    CHECK(a.bytes_per_element() == 3 * 4);
    CHECK(a.dense_share == Approx(1.0 / 4));
  }
  SECTION("FSDP2 under pipeline parallelism: a whole fp32 sum, the first micro-batch casting into it") {
    s.parallelism.zero_stage = 3;
    s.framework.sharding.pipeline_holds_unsharded = true;
    const auto a = parallel::gradient_accumulation(s);
    CHECK(a.dense_share == 1);
    CHECK(a.bytes_per_element() == 2 + 2 * 4);  // read the bf16 gradient, read and write the fp32 sum
    const double first = (2.0 + 4) / (2 + 2 * 4);  // read bf16, write fp32; against read both, write fp32
    CHECK(a.first_share == Approx(first));
    CHECK(a.mean_share(4) == Approx((3 + first) / 4));
  }
  SECTION("Megatron's fp32 main_grad: every micro-batch adds its bf16 gradient, the first too") {
    s.framework = config::framework_profile("megatron-2022");
    s.training.grad_accumulation_fusion = false;
    s.framework.gradient_reduce_dtype.reset();
    const auto a = parallel::gradient_accumulation(s);
    CHECK(a.sum == DType::fp32);
    CHECK(a.bytes_per_element() == 2 + 2 * 4);
    CHECK(a.mean_share(4) == 1);
    CHECK(a.mean_share(1) == 1);
  }
  SECTION("fused accumulation: nothing to sum; one micro-batch of replicated gradients: nothing either") {
    CHECK(parallel::gradient_accumulation(s).mean_share(1) == 0);
    s.training.grad_accumulation_fusion = true;
    CHECK_FALSE(parallel::gradient_accumulation(s).active);
    CHECK(parallel::gradient_accumulation(s).mean_share(4) == 0);
  }
}
