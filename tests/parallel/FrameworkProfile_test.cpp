// What a framework profile changes in a plan, each mechanism on an ideal platform with closed-form
// expectations (docs/frameworks.md): blocking pipeline sends add exactly their transfer time to the
// sender's critical path, asynchronous ones run on their own stream, host time adds exactly once
// per iteration and per micro-batch, the kernel-time factor scales compute, and the optimizer's
// copy passes follow the profile.
#include <catch2/catch.hpp>

#include <string>

#include "config/FrameworkRegistry.hpp"
#include "support/PlanRun.hpp"
#include "support/StepPlannerScenario.hpp"
#include "support/TestPlatforms.hpp"
#include "workload/OptimizerStep.hpp"
#include "workload/TransformerModel.hpp"

using namespace clearfog;
using test::LayerGemmsOnly;

namespace {

constexpr double kBandwidth_Bps = 100e9;
constexpr double kLatency_s = 1e-6;

config::ScenarioSpec pipeline(config::P2pMode mode) {
  config::ScenarioSpec s;
  s.name = "p2p test";
  s.platform = test::switch_platform(2, kBandwidth_Bps, kLatency_s);
  s.workload = test::with_transformer(test::small_gpt(), [](workload::TransformerSpec& w) { w.layers = 4; });
  s.training.micro_batch = 1;
  s.training.global_batch = 2;  // two micro-batches: stage 0 runs F0, F1 before its first backward
  s.parallelism.pp = 2;
  s.framework.p2p = mode;
  return s;
}

/// A pipeline send or receive (not the sum of tied embedding gradients, also pipeline traffic).
bool p2p_op(const std::string& name) {
  return name.find(".send_") != std::string::npos || name.find(".recv_") != std::string::npos;
}

/// Start of the first compute op of rank 0 whose name starts with `prefix`.
double first_start(const test::PlanRun& run, const std::string& prefix) {
  const auto& program = run.step.plan.ranks[0];
  for (program::OpIndex i = 0; i < program.size(); ++i)
    if (program.kind(i) == program::OpKind::Compute && program.name(i).starts_with(prefix))
      return run.result.ops[0][i].start_s;
  FAIL("no op " << prefix);
  return 0;
}

config::ScenarioSpec single_device() {
  config::ScenarioSpec s;
  s.name = "host test";
  s.platform = test::switch_platform(1, kBandwidth_Bps, kLatency_s);
  s.workload = test::small_gpt();
  s.training.micro_batch = 1;
  s.training.global_batch = 3;
  return s;
}

}  // namespace

TEST_CASE("parallel::plan_step: a blocking send adds exactly its transfer time to the sender's critical path",
          "[parallel][framework]") {
  // 1F1B on 2 stages, 2 micro-batches: stage 0 runs F0, sends its activation, then F1. Async, F1
  // follows F0 at once; blocking (Megatron 2021's synchronize), it waits until the activation has
  // reached stage 1, whose receive is already posted: 2 link latencies + bytes / bandwidth later.
  const auto async = test::plan_and_run(pipeline(config::P2pMode::Async), LayerGemmsOnly{});
  const auto blocking = test::plan_and_run(pipeline(config::P2pMode::Blocking), LayerGemmsOnly{});
  const double activation_B = async.step.p2p_bytes;
  REQUIRE(activation_B > 0);
  const double transfer_s = 2 * kLatency_s + activation_B / kBandwidth_Bps;
  const double f0_end = first_start(async, "mb1.");
  CHECK(first_start(blocking, "mb0.") == first_start(async, "mb0."));
  CHECK(first_start(blocking, "mb1.") - f0_end == Approx(transfer_s).epsilon(1e-9));
  // Stage 0 waits for stage 1's gradients anyway: here the delay hides in that wait.
  CHECK(blocking.result.makespan_s >= async.result.makespan_s);
  // Blocking sends run on the compute stream; receives are posted ahead on the p2p stream.
  for (const auto& op : blocking.step.plan.ranks[0].ops()) {
    if (!p2p_op(op.name)) continue;
    CHECK(op.stream == (op.sends.empty() ? program::Stream::P2p : program::Stream::Compute));
  }
}

TEST_CASE("parallel::plan_step: asynchronous sends get their own stream, async-shared the reductions' one",
          "[parallel][framework]") {
  for (const auto& [mode, stream] : {std::pair{config::P2pMode::Async, program::Stream::P2p},
                                     std::pair{config::P2pMode::AsyncShared, program::Stream::Comm}}) {
    const auto step =
        parallel::plan_step(pipeline(mode), LayerGemmsOnly{}, parallel::plain_group_collectives(2));
    int sends = 0;
    for (const auto& op : step.plan.ranks[0].ops())
      if (p2p_op(op.name) && !op.sends.empty()) {
        CHECK(op.stream == stream);
        CHECK(op.recvs.empty());
        ++sends;
      }
    CHECK(sends == 2);  // one activation per micro-batch
  }
}

TEST_CASE("parallel::plan_step: host time adds once per iteration and once per micro-batch", "[parallel][framework]") {
  // One device, no communication: the compute stream is the step.
  const auto base = test::plan_and_run(single_device(), LayerGemmsOnly{});
  auto s = single_device();
  s.framework.host_per_iteration_s = 0.25;
  s.framework.host_per_micro_batch_s = 0.01;
  const auto host = test::plan_and_run(s, LayerGemmsOnly{});
  const int m = s.micro_batches_per_replica();
  CHECK(host.result.makespan_s - base.result.makespan_s == Approx(0.25 + m * 0.01).epsilon(1e-12));
}

TEST_CASE("parallel::plan_step: the kernel-time factor scales every compute op", "[parallel][framework]") {
  const auto base = test::plan_and_run(single_device(), LayerGemmsOnly{});
  auto s = single_device();
  s.framework.kernel_time_factor = 1.5;
  const auto slow = test::plan_and_run(s, LayerGemmsOnly{});
  CHECK(slow.result.makespan_s == Approx(1.5 * base.result.makespan_s).epsilon(1e-12));
  s.framework.kernel_time_factor = 1.0;
  const auto same = test::plan_and_run(s, LayerGemmsOnly{});
  CHECK(same.result.makespan_s == base.result.makespan_s);  // bit for bit
}

TEST_CASE("workload::optimizer_traffic: the copy and unscale passes follow the profile", "[workload][framework]") {
  // Adam on fp32 state: p, g, m, v read and p, m, v written (28 B) plus the gradient norm (4 B).
  const double update = 28 + 4;
  // Megatron's fp16 optimizer: 16-bit gradients to fp32 (2 + 4), fp32 weights back (4 + 2), unscale
  // and inf check (4 + 4).
  CHECK(workload::optimizer_traffic(true, DType::fp16).bytes_per_parameter == update + 12 + 8);
  CHECK(workload::optimizer_traffic(true, DType::bf16).bytes_per_parameter == update + 12);
  const config::OptimizerPasses none{.master_copies = false, .fp16_unscale = false};
  CHECK(workload::optimizer_traffic(true, DType::fp16, none).bytes_per_parameter == update);
  CHECK(workload::optimizer_traffic(true, DType::bf16, none).bytes_per_parameter == update);
}

TEST_CASE("parallel::plan_step: a gradient reduce dtype sets the bytes the reduce-scatters move", "[parallel][framework]") {
  // FSDP2's MixedPrecisionPolicy(reduce_dtype=float32) on bf16 training: every gradient reduced
  // is 4 bytes an element instead of 2, the parameter all-gathers stay bf16.
  config::ScenarioSpec s = single_device();
  s.platform = test::switch_platform(2, kBandwidth_Bps, kLatency_s);
  s.training.global_batch = 2;
  s.training.precision = DType::bf16;
  s.parallelism.dp = 2;
  s.parallelism.zero_stage = 3;
  const auto sent = [](const parallel::StepPlan& step, bool reductions) {
    double total = 0;
    const auto& p = step.plan.ranks[0];
    for (program::OpIndex i = 0; i < p.size(); ++i) {
      if (p.category(i) != program::Category::DataParallelComm) continue;
      if ((p.stream(i) == program::Stream::Gather) == reductions) continue;
      for (std::uint32_t t = p.transfer_begin(i); t < p.sends_end(i); ++t) total += p.bytes(t);
    }
    return total;
  };
  const auto bf16 = test::plan_and_run(s, LayerGemmsOnly{});
  s.framework.gradient_reduce_dtype = DType::fp32;
  const auto fp32 = test::plan_and_run(s, LayerGemmsOnly{});
  CHECK(fp32.step.gradient_bytes == Approx(2 * bf16.step.gradient_bytes).epsilon(1e-12));
  CHECK(sent(fp32.step, true) == Approx(2 * sent(bf16.step, true)).epsilon(1e-12));
  CHECK(sent(fp32.step, false) == Approx(sent(bf16.step, false)).epsilon(1e-12));
  CHECK(sent(bf16.step, false) > 0);
}

TEST_CASE("config::ScenarioSpec: Megatron reduces bf16 gradients in fp32 and its optimizer reads them without a copy",
          "[parallel][frameworks]") {
  // Megatron-LM's arguments.py forces accumulate_allreduce_grads_in_fp32 for bf16: fp32 main_grad
  // buffers, reduced in fp32; fp16 keeps fp16 gradients. training.grad_reduce_dtype overrides.
  auto s = test::step_planner::scenario(1, 1, 2, 1);
  s.framework = config::framework_profile("megatron-2022");
  s.training.precision = DType::bf16;
  CHECK(s.gradient_reduce_dtype() == DType::fp32);
  CHECK_FALSE(s.optimizer_passes().gradient_copy);
  s.training.precision = DType::fp8;  // bf16 weights and gradients
  CHECK(s.gradient_reduce_dtype() == DType::fp32);
  s.training.precision = DType::fp16;
  CHECK(s.gradient_reduce_dtype() == DType::fp16);
  CHECK(s.optimizer_passes().gradient_copy);
  s.training.precision = DType::bf16;
  s.framework.gradient_reduce_dtype = DType::bf16;  // training.grad_reduce_dtype: bf16
  CHECK(s.gradient_reduce_dtype() == DType::bf16);
  CHECK(s.optimizer_passes().gradient_copy);
  // The optimizer's bytes per parameter: 44 with the copy, 38 without (docs/compute-model.md).
  CHECK(workload::optimizer_traffic(true, DType::bf16, config::OptimizerPasses{}).bytes_per_parameter == 44);
  CHECK(workload::optimizer_traffic(true, DType::bf16, config::OptimizerPasses{.gradient_copy = false})
            .bytes_per_parameter == 38);
}
