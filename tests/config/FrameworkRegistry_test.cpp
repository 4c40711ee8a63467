// The framework profile registry (docs/frameworks.md): every profile named once and sourced, the
// default profile is the behaviour scenarios had before profiles (a default-built profile), and a
// scenario's own training keys win over its profile's.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "config/ConfigLoader.hpp"
#include "config/FrameworkRegistry.hpp"
#include "core/Errors.hpp"

using namespace clearfog;
using namespace clearfog::config;

namespace {

/// Everything a profile decides except its name and texts.
bool same_behaviour(const FrameworkProfile& a, const FrameworkProfile& b) {
  const auto& f = a.fusions;
  const auto& g = b.fusions;
  return f.bias_gelu == g.bias_gelu && f.softmax_mask == g.softmax_mask && f.layernorm == g.layernorm &&
         f.attention == g.attention && f.cross_entropy == g.cross_entropy && f.batchnorm_relu == g.batchnorm_relu &&
         a.p2p == b.p2p && a.ddp == b.ddp &&
         a.grad_accumulation_fusion == b.grad_accumulation_fusion &&
         a.optimizer.master_copies == b.optimizer.master_copies &&
         a.optimizer.fp16_unscale == b.optimizer.fp16_unscale && a.host_per_iteration_s == b.host_per_iteration_s &&
         a.host_per_micro_batch_s == b.host_per_micro_batch_s && a.kernel_time_factor == b.kernel_time_factor;
}

ScenarioSpec quickstart(const std::vector<Override>& overrides = {}) {
  return load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/quickstart.yaml", overrides);
}

}  // namespace

TEST_CASE("config::FrameworkRegistry: every profile has a unique name, a description and a source", "[config]") {
  std::set<std::string> names;
  for (const auto& p : framework_profiles()) {
    INFO(p.name);
    CHECK(names.insert(p.name).second);
    CHECK(!p.description.empty());
    CHECK(!p.source.empty());
    CHECK(p.kernel_time_factor > 0);
    CHECK(p.host_per_iteration_s >= 0);
    CHECK(p.host_per_micro_batch_s >= 0);
  }
  CHECK(names.count(std::string(kDefaultFramework)) == 1);
  for (const char* expected : {"megatron-2021", "megatron-2022", "megatron-core-2024", "pytorch-fsdp", "deepspeed",
                               "xla-fused", "mxnet"})
    CHECK(names.count(expected) == 1);
  CHECK_THROWS_AS(framework_profile("megatron-1999"), Error);
}

TEST_CASE("config::FrameworkRegistry: the default profile is clearfog's behaviour before profiles, plus host launches",
          "[config]") {
  // A default-built profile is what code-built scenarios (every planner test) run with; the
  // default profile must decide exactly the same, so results without `framework:` stay the same,
  // except that its kernels are launched by an eager PyTorch host (docs/host-time.md).
  CHECK(same_behaviour(framework_profile(kDefaultFramework), FrameworkProfile{}));
  CHECK_FALSE(FrameworkProfile{}.host.active());
  const auto& host = framework_profile(kDefaultFramework).host;
  const auto eager = frameworks::pytorch_eager_host();
  CHECK(host.active());
  CHECK(host.forward_launch_s == eager.forward_launch_s);
  CHECK(host.backward_launch_s == eager.backward_launch_s);
  CHECK_FALSE(host.cuda_graphs);
  const auto s = quickstart();
  CHECK(s.framework.name == kDefaultFramework);
  // The keys the profile now supplies keep their former defaults.
  CHECK(s.training.overlap_grad_reduce);
  CHECK(s.training.grad_accumulation_fusion);
  CHECK(s.training.attention == Attention::Unfused);
  CHECK_FALSE(s.training.batchnorm_relu_fusion);
}

TEST_CASE("config::FrameworkRegistry: a scenario's training keys win over its profile's", "[config]") {
  SECTION("the profile fills in what the scenario leaves out") {
    const auto s = quickstart({{"framework", "megatron-2021"}});
    CHECK(s.framework.p2p == P2pMode::Blocking);
    CHECK_FALSE(s.training.overlap_grad_reduce);  // local DDP
    CHECK_FALSE(s.training.grad_accumulation_fusion);
    const auto core = quickstart({{"framework", "megatron-core-2024"}});
    CHECK(core.training.attention == Attention::Fused);
    CHECK(core.framework.fusions.attention);
    const auto mx = quickstart({{"framework", "mxnet"}});
    CHECK(mx.training.batchnorm_relu_fusion);
    CHECK(mx.framework.fusions.batchnorm_relu);
  }
  SECTION("given keys override it, and the profile the planner reads agrees") {
    const auto s = quickstart({{"framework", "megatron-2021"}, {"training.overlap_grad_reduce", "true"},
                               {"training.attention", "fused"}});
    CHECK(s.training.overlap_grad_reduce);
    CHECK(s.framework.ddp == DdpFlavour::Torch);
    CHECK(s.framework.fusions.attention);
    const auto off = quickstart({{"framework", "mxnet"}, {"training.batchnorm_relu_fusion", "false"}});
    CHECK_FALSE(off.framework.fusions.batchnorm_relu);
    const auto on = quickstart({{"training.batchnorm_relu_fusion", "true"}});
    CHECK(on.framework.fusions.batchnorm_relu);
  }
}

TEST_CASE("config::FrameworkRegistry: a scenario runs its platform's framework unless it names one", "[config]") {
  // The whole-graph-compiled machines name their compiler's stack; the GPU platforms name none.
  const std::string platforms = std::string(CLEARFOG_SOURCE_DIR) + "/platforms/";
  for (const char* file : {"tpu-v4-4x4x4.yaml", "ipu-pod16.yaml", "cs2-wse2.yaml"}) {
    INFO(file);
    CHECK(load_platform(platforms + file).framework == "xla-fused");
  }
  CHECK(load_platform(platforms + "dgx-a100.yaml").framework.empty());
  SECTION("the platform's stack when the scenario names none") {
    const auto s = quickstart({{"platform.framework", "xla-fused"}});
    CHECK(s.framework.name == "xla-fused");
    CHECK(s.framework.fusions.cross_entropy);
    CHECK_FALSE(s.framework.optimizer.master_copies);
  }
  SECTION("the scenario's own framework wins over the platform's") {
    const auto s = quickstart({{"platform.framework", "xla-fused"}, {"framework", "megatron-2021"}});
    CHECK(s.framework.name == "megatron-2021");
  }
  SECTION("a platform naming no stack leaves the default") {
    CHECK(quickstart().framework.name == kDefaultFramework);
  }
  SECTION("a platform's framework is checked against the registry") {
    CHECK_THROWS_AS(quickstart({{"platform.framework", "megatron-1999"}}), ConfigError);
  }
}

TEST_CASE("config::FrameworkRegistry: torchtitan runs eager pointwise ops and reduces gradients in fp32", "[config]") {
  // torchtitan's model code and config (docs/frameworks.md): SDPA flash attention, RMSNorm /
  // SwiGLU / rotary as eager ops, mixed_precision_reduce float32, eager PyTorch's host launches.
  const auto& t = framework_profile("torchtitan");
  CHECK(t.fusions.attention);
  CHECK_FALSE(t.fusions.pointwise);
  CHECK(t.gradient_reduce_dtype == DType::fp32);
  CHECK(t.host.forward_launch_s == frameworks::pytorch_eager_host().forward_launch_s);
  CHECK_FALSE(t.optimizer.master_copies);
  // torch.compile's Inductor fuses them: the key overrides the profile.
  CHECK(quickstart({{"framework", "torchtitan"}, {"training.pointwise_fusion", "true"}}).framework.fusions.pointwise);
  CHECK_FALSE(quickstart({{"training.pointwise_fusion", "false"}}).framework.fusions.pointwise);
  // Every other shipped profile fuses them and reduces in the training precision.
  for (const auto& p : framework_profiles()) {
    if (p.name == "torchtitan") continue;
    CHECK(p.fusions.pointwise);
    CHECK_FALSE(p.gradient_reduce_dtype);
  }
}

TEST_CASE("config::FrameworkRegistry: DeepSpeed overlaps its reductions under ZeRO-3 only, and fetches per tensor",
          "[config]") {
  // deepspeed/runtime/zero/config.py: overlap_comm defaults to true for stage 3, false otherwise;
  // stage3_param_persistence_threshold 1e5 elements.
  CHECK_FALSE(quickstart({{"framework", "deepspeed"}}).training.overlap_grad_reduce);
  CHECK(quickstart({{"framework", "deepspeed"}, {"parallelism.zero_stage", "3"}}).training.overlap_grad_reduce);
  CHECK_FALSE(quickstart({{"framework", "deepspeed"}, {"parallelism.zero_stage", "3"},
                          {"training.overlap_grad_reduce", "false"}})
                  .training.overlap_grad_reduce);
  const auto& ds = framework_profile("deepspeed").sharding;
  CHECK(ds.gather_per_tensor);
  CHECK(ds.persistence_threshold == 1e5);
  CHECK_FALSE(framework_profile("pytorch-fsdp").sharding.gather_per_tensor);
}
