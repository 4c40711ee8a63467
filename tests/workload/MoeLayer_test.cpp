// Mixture-of-Experts layers in the model description and the plan: parameters of the shipped MoE
// files, model FLOPs from the active parameters, the dispatch traffic of expert parallelism, and
// the slowdown skewed routing causes (docs/moe.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "config/ConfigLoader.hpp"
#include "parallel/StepPlanner.hpp"
#include "support/PlanRun.hpp"
#include "support/TestPlatforms.hpp"
#include "workload/TransformerModel.hpp"
#include "workload/ExpertRouting.hpp"
#include "workload/WorkloadType.hpp"

using namespace clearfog;

namespace {

config::WorkloadSpec small_moe(int experts, int top_k) {
  return test::with_transformer(test::small_gpt(), [&](workload::TransformerSpec& x) {
    x.experts = experts;
    x.top_k = top_k;
    x.expert_ffn_hidden = 1024;
  });
}

config::ScenarioSpec on_switch(const config::WorkloadSpec& w, int dp, int ep) {
  config::ScenarioSpec s;
  s.name = "moe test";
  s.platform = test::switch_platform(dp, 100e9, 1e-6);
  s.workload = w;
  s.training.micro_batch = 2;
  s.training.global_batch = 4 * dp;
  s.parallelism.dp = dp;
  s.parallelism.ep = ep;
  return s;
}

parallel::StepPlan plan(const config::ScenarioSpec& s) {
  return parallel::plan_step(s, test::ComputeOnlyModel{}, parallel::plain_group_collectives(s.platform.device_count()));
}

/// Prices the experts' grouped GEMMs only (their FLOPs at a fixed rate): an expert rank's time is
/// proportional to the token copies it processes.
class ExpertGemmsOnly final : public kernels::KernelCostModel {
public:
  [[nodiscard]] kernels::KernelCost cost(const kernels::Kernel& k) const override {
    return {k.kind == kernels::KernelKind::GroupedGemm ? k.flops / test::kGemmRate : 0.0, kernels::Bound::Compute};
  }
  [[nodiscard]] std::string name() const override { return "expert-gemms-only"; }
};

/// The expert all-to-alls of every pass of every block.
std::vector<const workload::CommPoint*> expert_exchanges(const workload::ModelDescription& d) {
  std::vector<const workload::CommPoint*> out;
  for (const auto& block : d.blocks)
    for (const auto* pass : {&block.forward, &block.backward})
      for (const auto& seg : *pass)
        if (seg.comm.group == workload::CommGroup::Expert && seg.comm.active()) out.push_back(&seg.comm);
  return out;
}

config::WorkloadSpec shipped(const char* file) {
  return config::load_workload(std::filesystem::path(CLEARFOG_SOURCE_DIR) / "workloads" / file);
}

}  // namespace

TEST_CASE("workload::MoE: parameters of Mixtral 8x7B and Qwen3-30B-A3B", "[workload][moe]") {
  // Per layer: attention h(a + 2k)d + a d h, two RMSNorm scales, the router h E, E SwiGLU experts
  // of 3 h f; untied embedding and output matrices, the final norm. Published: 46.7 B (Mixtral
  // paper) and 30.5 B (Qwen3 model card).
  struct Case {
    const char* file;
    double l, h, a, k, d, E, f, V, published;
  };
  for (const Case& c : {Case{"mixtral-8x7b.yaml", 32, 4096, 32, 8, 128, 8, 14336, 32000, 46.7e9},
                       Case{"qwen3-30b-a3b.yaml", 48, 2048, 32, 4, 128, 128, 768, 151936, 30.5e9}}) {
    const double layer = c.h * (c.a + 2 * c.k) * c.d + c.a * c.d * c.h + 2 * c.h + c.h * c.E + c.E * 3 * c.h * c.f;
    const double total = c.l * layer + 2 * c.V * c.h + c.h;
    const auto p = plan(on_switch(shipped(c.file), 1, 1)).parameters;
    INFO(c.file);
    CHECK(p == Approx(total).epsilon(1e-12));
    CHECK(p == Approx(c.published).epsilon(0.005));
  }
}

TEST_CASE("workload::MoE: parameters of gpt-oss-120b, with biases", "[workload][moe]") {
  // As above with biases: q, k, v and output projections, and each expert's gate/up (2f) and down
  // (h) projections. Published: 116.8 B (model card); the router bias and attention sinks (192
  // per layer) are left out.
  const double l = 36, h = 2880, a = 64, k = 8, d = 64, E = 128, f = 2880, V = 201088;
  const double attention = h * (a + 2 * k) * d + (a + 2 * k) * d + a * d * h + h;
  const double expert = 3 * h * f + 2 * f + h;
  const double total = l * (attention + 2 * h + h * E + E * expert) + 2 * V * h + h;
  const auto p = plan(on_switch(shipped("gpt-oss-120b.yaml"), 1, 1)).parameters;
  CHECK(p == Approx(total).epsilon(1e-12));
  CHECK(p == Approx(116.8e9).epsilon(0.005));
}

TEST_CASE("workload::MoE: model FLOPs are 6 x active parameters x tokens + attention", "[workload][moe]") {
  // A token runs the router (h E) and top_k experts (2 h f each, GeLU) instead of the dense MLP;
  // whatever the routing and the expert placement, the copies processed are tokens x top_k.
  for (const auto& moe : {config::MoeSpec{}, [] {
                            config::MoeSpec z;
                            z.routing = config::Routing::Zipf;
                            z.zipf_exponent = 1.2;
                            return z;
                          }()}) {
    for (const int ep : {1, 2, 4}) {
      auto s = on_switch(small_moe(8, 2), 4, ep);
      s.moe = moe;
      const auto& t = test::transformer(s.workload);
      const double tokens = static_cast<double>(s.training.global_batch) * t.seq_length;
      const double l = t.layers, h = t.hidden, V = t.vocab_size, sq = t.seq_length, E = 8, k = 2, f = 1024;
      const double active = l * (4 * h * h + h * E + k * 2 * h * f) + V * h;
      INFO("ep " << ep << ", routing " << config::routing_name(moe.routing));
      CHECK(plan(s).model_flops == Approx(tokens * (6 * active + 12 * l * sq * h)).epsilon(1e-12));
    }
  }
}

TEST_CASE("workload::MoE: expert parallelism sends (ep-1)/ep of the token copies each way", "[workload][moe]") {
  // Balanced routing, ep = 4: each device sends (ep-1)/ep of its b s k copies of h elements to the
  // other expert ranks, in the dispatch and the combine, forward and backward.
  auto s = on_switch(small_moe(8, 2), 4, 4);
  const auto d = workload::describe(s);
  const auto& t = test::transformer(s.workload);
  const double copies = 2.0 * t.seq_length * 2, e = 2;  // micro-batch 2, top-2, bf16
  const auto exchanges = expert_exchanges(d);
  for (const auto* comm : exchanges)
    for (std::size_t i = 0; i < 4; ++i) {
      double away = 0;
      for (std::size_t j = 0; j < 4; ++j)
        if (j != i) away += comm->matrix[i][j];
      CHECK(away == Approx(copies * t.hidden * e * 3 / 4));
    }
  CHECK(exchanges.size() == 4 * static_cast<std::size_t>(t.layers));
}

TEST_CASE("workload::MoE: skewed routing makes the busiest expert rank the bottleneck", "[workload][moe][simulation]") {
  // With the GEMMs priced at a fixed rate the experts' time on a rank is proportional to the
  // copies it processes, so the step grows with the skew (Zipf exponent) of the routing.
  double last = 0;
  for (const double skew : {0.0, 0.8, 1.5}) {
    auto s = on_switch(small_moe(8, 2), 4, 4);
    if (skew > 0) {
      s.moe.routing = config::Routing::Zipf;
      s.moe.zipf_exponent = skew;
    }
    const auto run = test::plan_and_run(s, test::ComputeOnlyModel{});
    INFO("zipf exponent " << skew);
    CHECK(run.metrics.step_time_s > last);
    last = run.metrics.step_time_s;
  }
}

TEST_CASE("workload::MoE: zipf slows the step by the busiest expert's share over the mean", "[workload][moe][simulation]") {
  // One expert per rank (E = ep = 8) on a near-ideal switch, only the expert GEMMs priced: every
  // layer waits for its busiest expert in the combine, so the step is sum over layers of the
  // busiest share, against 1/E for balanced routing. Closed form:
  // step(zipf) / step(balanced) = (1/L) sum_l E max_e p_{l,e}.
  const int E = 8;
  auto s = on_switch(small_moe(E, 2), E, E);
  s.platform = test::switch_platform(E, 1e18, 1e-12);
  const auto balanced = test::plan_and_run(s, ExpertGemmsOnly{}).metrics.step_time_s;
  s.moe.routing = config::Routing::Zipf;
  s.moe.zipf_exponent = 1.0;
  s.moe.seed = 11;
  const auto skewed = test::plan_and_run(s, ExpertGemmsOnly{}).metrics.step_time_s;
  const auto& t = test::transformer(s.workload);
  double ratio = 0;
  for (int l = 0; l < t.layers; ++l) {
    const auto p = workload::expert_shares(s.moe, E, t.top_k, l);
    ratio += E * *std::max_element(p.begin(), p.end()) / t.layers;
  }
  CHECK(ratio > 1.5);  // zipf(1) over 8 experts: the top expert takes 0.37 of the copies
  CHECK(skewed / balanced == Approx(ratio).epsilon(1e-3));
}

TEST_CASE("workload::MoE: DeepEP sends each token once to every device its experts are on", "[workload][moe]") {
  // 8 experts, top-2, ep = 4 (two experts per device): a token reaches a given device with
  // 1 - C(6,2)/C(8,2) = 13/28 of its tokens, against k/ep = 1/2 copies with Megatron's dispatcher.
  auto s = on_switch(small_moe(8, 2), 4, 4);
  s.moe.dispatcher = config::Dispatcher::DeepEp;
  const auto d = workload::describe(s);
  const auto& t = test::transformer(s.workload);
  const double tokens = 2.0 * t.seq_length, e = 2;  // micro-batch 2, bf16
  const double reach = 1 - (6.0 * 5) / (8.0 * 7);
  const auto exchanges = expert_exchanges(d);
  for (const auto* comm : exchanges) {
    REQUIRE(comm->dedup.has_value());
    CHECK(comm->dedup->top_k == 2);
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t j = 0; j < 4; ++j)
        CHECK(comm->matrix[i][j] == Approx(i == j ? 0.0 : tokens * reach * t.hidden * e));
  }
  CHECK(exchanges.size() == 4 * static_cast<std::size_t>(t.layers));
}
