// The transformer's model description against closed forms: the figures the planner sums from it
// (model FLOPs, Megatron's FLOPs, parameters) reproduce Korthikanti Eq. 7, Megatron SC21 Eq. 3 and
// Eq. 2 for GPT shapes and follow ffn_hidden, grouped-query attention and gated MLPs where the
// closed forms do not apply.
#include <catch2/catch.hpp>

#include <filesystem>

#include "config/ConfigLoader.hpp"
#include "parallel/StepPlanner.hpp"
#include "sweep/SweepSpec.hpp"
#include "support/PlanRun.hpp"
#include "support/ReferenceCsv.hpp"
#include "support/TestPlatforms.hpp"
#include "workload/TransformerModel.hpp"
#include "workload/WorkloadType.hpp"

using namespace clearfog;

namespace {

/// A scenario of `w` on an ideal switch: dp x tp devices, `micro_batches` per replica.
config::ScenarioSpec on_switch(const config::WorkloadSpec& w, int dp, int tp, int micro_batches = 2) {
  config::ScenarioSpec s;
  s.name = "description test";
  s.platform = test::switch_platform(dp * tp, 100e9, 1e-6);
  s.workload = w;
  s.training.micro_batch = 2;
  s.training.global_batch = 2 * micro_batches * dp;
  s.parallelism.dp = dp;
  s.parallelism.tp = tp;
  return s;
}

parallel::StepPlan plan(const config::ScenarioSpec& s) {
  return parallel::plan_step(s, test::ComputeOnlyModel{}, parallel::plain_group_collectives(s.platform.device_count()));
}

config::WorkloadSpec shipped(const char* file) {
  return config::load_workload(std::filesystem::path(CLEARFOG_SOURCE_DIR) / "workloads" / file);
}

}  // namespace

TEST_CASE("workload::ModelDescription: GPT model FLOPs are Korthikanti Eq. 7, Megatron's are Eq. 3", "[workload]") {
  for (const int tp : {1, 4}) {
    const auto s = on_switch(test::small_gpt(), 2, tp);
    const auto& w = test::transformer(s.workload);
    const double B = s.training.global_batch, l = w.layers, sq = w.seq_length, h = w.hidden, V = w.vocab_size;
    const auto step = plan(s);
    INFO("tp " << tp);
    CHECK(step.model_flops == Approx(72 * B * l * sq * h * h * (1 + sq / (6 * h) + V / (12 * h * l))).epsilon(1e-12));
    CHECK(step.megatron_flops == Approx(96 * B * sq * l * h * h * (1 + sq / (6 * h) + V / (16 * l * h))).epsilon(1e-12));
    // Without recomputation the hardware executes the model's FLOPs; full recomputation adds one
    // forward of every layer (Korthikanti Eq. 8's full-recompute case), i.e. Eq. 3 - Eq. 7.
    CHECK(step.hardware_flops == Approx(step.model_flops).epsilon(1e-12));
    auto full = s;
    full.training.recompute = config::Recompute::Full;
    CHECK(plan(full).hardware_flops == Approx(step.megatron_flops).epsilon(1e-12));
  }
}

TEST_CASE("workload::ModelDescription: model FLOPs follow ffn_hidden: 6 N tokens + attention", "[workload]") {
  // Per token: 2 FLOPs per parameter of a matrix product forward, twice that backward, so
  // 6 (l (4h^2 + 2hf) + Vh); the scores and their product with V: 12 l s h (forward 4 l s h).
  // The closed forms assume f = 4h; the description must not.
  for (const int f : {1024, 2048, 8192}) {
    const auto w = test::with_transformer(test::small_gpt(), [&](workload::TransformerSpec& x) { x.ffn_hidden = f; });
    const auto s = on_switch(w, 2, 1);
    const auto& t = test::transformer(w);
    const double tokens = static_cast<double>(s.training.global_batch) * t.seq_length;
    const double l = t.layers, h = t.hidden, V = t.vocab_size, sq = t.seq_length;
    const double matmul_parameters = l * (4 * h * h + 2 * h * f) + V * h;
    INFO("ffn_hidden " << f);
    CHECK(plan(s).model_flops == Approx(tokens * (6 * matmul_parameters + 12 * l * sq * h)).epsilon(1e-12));
  }
}

TEST_CASE("workload::ModelDescription: MFU follows ffn_hidden on a shipped scenario", "[workload]") {
  // The defect the description fixes: MFU used a closed form that ignores f, so an MLP four times
  // wider left "model FLOPs" unchanged. Now they scale with the matrix products actually run.
  const auto quickstart = config::load_scenario(std::filesystem::path(CLEARFOG_SOURCE_DIR) / "scenarios/quickstart.yaml");
  auto narrow = quickstart, wide = quickstart;
  narrow.workload = test::with_transformer(quickstart.workload, [](auto& x) { x.ffn_hidden = 2048; });
  wide.workload = test::with_transformer(quickstart.workload, [](auto& x) { x.ffn_hidden = 16384; });
  const auto& w = test::transformer(quickstart.workload);
  const double tokens = static_cast<double>(quickstart.training.global_batch) * w.seq_length;
  const double l = w.layers, h = w.hidden;
  // Each MLP matrix adds 6 h df FLOPs per token and layer, two matrices.
  CHECK(plan(wide).model_flops - plan(narrow).model_flops == Approx(tokens * l * 2 * 6 * h * (16384 - 2048)));
}

TEST_CASE("workload::ModelDescription: parameters of the shipped Llama and MPT files", "[workload]") {
  struct Case {
    const char* file;
    double published;
    double tolerance;
  };
  // Llama 2 (Touvron et al. 2023): 6.74 B and 68.98 B as counted from the released weights; Llama 3
  // (the Llama 3 paper's Table 3 and model cards): 8.03 B, 70.6 B, 405 B; MPT rows of llm-foundry's table
  // (exact counts, shared/reference/mpt_fsdp_a100_40gb.csv).
  for (const Case c : {Case{"llama-2-7b.yaml", 6.74e9, 0.005}, Case{"llama-2-70b.yaml", 68.98e9, 0.005},
                       Case{"llama-3-8b.yaml", 8.03e9, 0.005}, Case{"llama-3-70b.yaml", 70.6e9, 0.005},
                       Case{"llama-3.1-405b.yaml", 405e9, 0.005},
                       Case{"mpt-7b.yaml", 6658859008.0, 1e-12}, Case{"mpt-30b.yaml", 29975214080.0, 1e-12}}) {
    const auto w = shipped(c.file);
    const auto s = on_switch(w, 1, 1, 1);
    INFO(c.file);
    CHECK(plan(s).parameters == Approx(c.published).epsilon(c.tolerance));
  }
  // Llama-2 7B by hand: per layer 4h^2 (attention) + 3hf (SwiGLU) + 2h (RMSNorm scales), untied
  // embedding and output matrices, the final norm.
  const double h = 4096, f = 11008, V = 32000, l = 32;
  CHECK(plan(on_switch(shipped("llama-2-7b.yaml"), 1, 1, 1)).parameters == l * (4 * h * h + 3 * h * f + 2 * h) + 2 * V * h + h);
}

TEST_CASE("workload::ModelDescription: the MPT hold-out sweeps run the published models, parameter for parameter",
          "[workload]") {
  // tests/data/reference/mpt_fsdp_a100_40gb_holdout.csv: llm-foundry's exact parameter count of each
  // row (seven model sizes, sequences 512 to 32,768: learned positions add seq x d_model).
  const auto published =
      test::read_csv_table(std::filesystem::path(CLEARFOG_TEST_DATA_DIR) / "reference/mpt_fsdp_a100_40gb_holdout.csv");
  std::vector<config::ScenarioSpec> scenarios;
  for (const char* file : {"mpt-fsdp-a100-40gb-holdout-node.yaml", "mpt-fsdp-a100-40gb-holdout-cluster.yaml"}) {
    const auto spec = sweep::load_sweep(std::filesystem::path(CLEARFOG_SOURCE_DIR) / "scenarios/sweeps" / file);
    for (const auto& point : spec.points()) scenarios.push_back(config::load_scenario(spec.base, point.overrides));
  }
  REQUIRE(scenarios.size() == published.size());
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const auto& row = published[i];
    const auto& scenario = scenarios[i];
    INFO("row " << i << ": " << row.at("model") << " seq " << row.at("seq") << " on " << row.at("gpus") << " GPUs");
    CHECK(scenario.platform.device_count() == std::stoi(row.at("gpus")));
    CHECK(scenario.training.micro_batch == std::stoi(row.at("micro_batch")));
    CHECK(scenario.training.global_batch == std::stoi(row.at("global_batch")));
    CHECK(plan(on_switch(scenario.workload, 1, 1, 1)).parameters == std::stod(row.at("n_params")));
  }
}

TEST_CASE("workload::ModelDescription: grouped-query attention and SwiGLU shapes per tensor rank", "[workload]") {
  const auto w = shipped("llama-2-70b.yaml");
  const auto& t = test::transformer(w);
  const int tp = 8, b = 1;
  const workload::TransformerModel model(t, b, DType::bf16, {tp, true}, config::Attention::Fused);
  const long long s = t.seq_length, h = t.hidden, d = h / t.heads, a = t.heads / tp, k = t.kv_heads / tp;
  const auto attention = model.attention_forward();
  const auto mlp = model.mlp_forward();
  auto find = [](const std::vector<kernels::Kernel>& list, const std::string& name) {
    for (const auto& kernel : list)
      if (kernel.name == name) return kernel;
    FAIL("no kernel " << name);
    return kernels::Kernel{};
  };
  // Q for a/t heads, K and V for k/t heads: (a + 2k) d columns of this rank.
  CHECK(find(attention, "qkv").gemm.n == (a + 2 * k) * d);
  CHECK(find(attention, "qkv").gemm.m == b * s);
  CHECK(find(attention, "proj").gemm.k == a * d);
  CHECK(find(attention, "attention").attention.batch_heads == b * a);
  CHECK(find(attention, "rope").bytes == 2.0 * static_cast<double>(b * s * (a + k) * d) * 2);  // read and write Q and K
  // SwiGLU: gate and up in one GEMM (2f/t columns), down from f/t.
  CHECK(find(mlp, "fc1").gemm.n == 2 * t.ffn_hidden / tp);
  CHECK(find(mlp, "fc2").gemm.k == t.ffn_hidden / tp);
  CHECK(find(mlp, "swiglu").bytes == 3.0 * static_cast<double>(b * s * t.ffn_hidden / tp) * 2);
  // No dropout, no biases: plain residual adds, and no bias tensors among the parameters.
  CHECK(find(mlp, "add1").kind == kernels::KernelKind::MemoryBound);
  const auto description = workload::workload_type("transformer").describe(w, {b, DType::bf16, tp, true, config::Attention::Fused, 1, {}, {}});
  for (const auto& p : description.blocks.at(1).params) CHECK(p.name.find("bias") == std::string::npos);
}

TEST_CASE("workload::ModelDescription: a device holds its shard, the model counts every tensor once", "[workload]") {
  // Sharded tensors hold 1/t on each rank; replicated ones (norms, row-parallel biases, position
  // embeddings) the whole: summed over a tensor group with replicas counted once, the model.
  const auto w = test::small_gpt();
  const auto one = workload::workload_type("transformer").describe(w, {2, DType::bf16, 1, false, {}, 1, {}, {}});
  const auto four = workload::workload_type("transformer").describe(w, {2, DType::bf16, 4, false, {}, 1, {}, {}});
  CHECK(one.parameters() == four.parameters());
  for (std::size_t b = 0; b < one.blocks.size(); ++b)
    for (std::size_t i = 0; i < one.blocks[b].params.size(); ++i) {
      const auto& whole = one.blocks[b].params[i];
      const auto& shard = four.blocks[b].params[i];
      INFO(one.blocks[b].name << "." << whole.name);
      CHECK((shard.elements == whole.elements || shard.elements * 4 == whole.elements));
    }
}

TEST_CASE("workload::ModelDescription: overrides give layers of another shape a block type of their own",
          "[workload]") {
  auto spec = test::small_gpt_spec();
  spec.overrides.push_back({0, 1, 4096, workload::MlpKind::SwiGlu, std::nullopt});
  const auto w = workload::make_transformer_workload("mixed", spec);
  const auto d = workload::workload_type("transformer").describe(w, {1, DType::bf16, 1, false, {}, 1, {}, {}});
  REQUIRE(d.blocks.size() == static_cast<std::size_t>(spec.layers + 2));
  CHECK(d.blocks[1].type != d.blocks[2].type);
  CHECK(d.blocks[2].type == d.blocks[3].type);
  const double h = spec.hidden;
  // The first layer's MLP: 3 h f with f = 4096 and biases 2f + h; the others 2 h (4h) + 4h + h.
  CHECK(d.blocks[1].model_parameters() - d.blocks[2].model_parameters() ==
        (3 * h * 4096 + 2 * 4096 + h) - (2 * h * 4 * h + 4 * h + h));
}
