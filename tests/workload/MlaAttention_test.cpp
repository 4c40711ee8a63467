// Multi-head latent attention (workload/TransformerMla): DeepSeek-V3's parameter count from its
// config (671 B published), model FLOPs of 6 x active parameters per token plus the attention
// scores over q.k and v dimensions, and the tensor-parallel split of the projections.
#include <catch2/catch.hpp>

#include <filesystem>

#include "config/ConfigLoader.hpp"
#include "parallel/StepPlanner.hpp"
#include "support/PlanRun.hpp"
#include "support/TestPlatforms.hpp"
#include "workload/TransformerMla.hpp"
#include "workload/WorkloadType.hpp"

using namespace clearfog;

namespace {

/// A small MLA model: the small GPT (h 512, 8 heads, GeLU MLP of 4h, learned positions, tied
/// embeddings) with latents q 64, kv 32, q.k 32 + 16, v 32, no biases.
config::WorkloadSpec small_mla(int q_lora) {
  return test::with_transformer(test::small_gpt(), [&](workload::TransformerSpec& x) {
    x.q_lora_rank = q_lora;
    x.kv_lora_rank = 32;
    x.qk_nope_head_dim = 32;
    x.qk_rope_head_dim = 16;
    x.v_head_dim = 32;
    x.bias = false;
  });
}

config::ScenarioSpec on_switch(const config::WorkloadSpec& w, int tp) {
  config::ScenarioSpec s;
  s.name = "mla test";
  s.platform = test::switch_platform(tp, 100e9, 1e-6);
  s.workload = w;
  s.training.micro_batch = 2;
  s.training.global_batch = 4;
  s.parallelism.tp = tp;
  s.parallelism.sequence_parallel = tp > 1;
  return s;
}

parallel::StepPlan plan(const config::ScenarioSpec& s) {
  return parallel::plan_step(s, test::ComputeOnlyModel{}, parallel::plain_group_collectives(s.platform.device_count()));
}

/// MLA projections of one layer: q (through its latent when q_lora > 0, with the latent's norm),
/// kv latent plus the shared rope key, its norm and up-projection, the output projection.
double mla_parameters(double h, double a, double q_lora, double kv_lora, double nope, double rope, double v) {
  const double q = q_lora > 0 ? h * q_lora + q_lora + q_lora * a * (nope + rope) : h * a * (nope + rope);
  return q + h * (kv_lora + rope) + kv_lora + kv_lora * a * (nope + v) + a * v * h;
}

}  // namespace

TEST_CASE("workload::MLA: DeepSeek-V3 has 187.1 M attention parameters a layer and 671 B in all", "[workload][mla]") {
  // config.json: h 7168, 128 heads, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128; 3 dense SwiGLU
  // layers of 18432, 58 MoE layers of 256 routed + 1 shared expert of 2048 (router h x 256), two
  // RMSNorms a layer, untied V x h embedding and output, a final norm. Published: 671 B (report, §1).
  const double h = 7168, E = 256, f = 2048, V = 129280;
  const double attention = mla_parameters(h, 128, 1536, 512, 128, 64, 128);
  CHECK(attention == Approx(187.1e6).epsilon(5e-4));
  const double dense = attention + 3 * h * 18432 + 2 * h;
  const double moe = attention + h * E + (E + 1) * 3 * h * f + 2 * h;
  const double total = 3 * dense + 58 * moe + 2 * V * h + h;
  const auto w = config::load_workload(std::filesystem::path(CLEARFOG_SOURCE_DIR) / "workloads" / "deepseek-v3.yaml");
  auto s = on_switch(w, 1);
  s.training.global_batch = 2;
  s.training.micro_batch = 1;
  const double p = workload::describe(s).parameters();
  CHECK(p == Approx(total).epsilon(1e-12));
  CHECK(p == Approx(671e9).epsilon(0.005));
  // 37 B activated per token (report, §1): all but 248 routed experts in each MoE layer, and the
  // input embedding (a lookup) counted.
  CHECK(p - 58 * (E - 8) * 3 * h * f == Approx(37e9).epsilon(0.02));
}

TEST_CASE("workload::MLA: model FLOPs are 6 x parameters x tokens + 6 s a (q.k + v) per token and layer",
          "[workload][mla]") {
  // Every projection runs once per token forward (2 FLOPs a parameter) and twice backward, the
  // replicated down-projections counted once over the tensor group; the scores take 2 s (nope + rope) and P.V 2 s v FLOPs per token and head forward, twice that
  // backward (full s x s matrices, as every attention kernel here). Fused or not, any tp.
  for (const int q_lora : {0, 64})
    for (const int tp : {1, 2})
      for (const auto attention : {config::Attention::Unfused, config::Attention::Fused}) {
        auto s = on_switch(small_mla(q_lora), tp);
        s.training.attention = attention;
        const auto& t = test::transformer(s.workload);
        const double tokens = static_cast<double>(s.training.global_batch) * t.seq_length;
        const double l = t.layers, h = t.hidden, a = t.heads, V = t.vocab_size, sq = t.seq_length;
        const double per_layer = mla_parameters(h, a, q_lora, 32, 32, 16, 32) + h * 4 * h + 4 * h * h;  // + GeLU MLP
        const double norms = (q_lora > 0 ? q_lora : 0) + 32;  // the latents' norm scales: no GEMM
        const double matmul = l * (per_layer - norms) + V * h;  // the logits GEMM; the embedding is a lookup
        INFO("q_lora " << q_lora << " tp " << tp << (attention == config::Attention::Fused ? " fused" : " unfused"));
        const auto step = plan(s);
        CHECK(step.model_flops == Approx(tokens * (6 * matmul + 6 * l * sq * a * (48 + 32))).epsilon(1e-12));
        CHECK(step.parameters == Approx(l * (per_layer + 2 * h) + (V + sq) * h + h).epsilon(1e-12));
      }
}

TEST_CASE("workload::MLA: tensor parallelism splits the heads' projections, replicates the latents'",
          "[workload][mla]") {
  // q_up, kv_up and proj are split over t; q_down, kv_down (the rope key included) and the latent
  // norms are held whole by every tensor rank.
  const double h = 512, a = 8;
  for (const int t : {1, 2, 4}) {
    const auto s = on_switch(small_mla(64), t);
    const auto model = workload::describe(s);
    double device = 0;
    for (const auto& p : model.blocks.at(model.block_index("L0")).params) device += p.elements;
    const double replicated = h * 64 + 64 + h * (32 + 16) + 32 + 2 * h;  // + ln1, ln2 (LayerNorm scales)
    const double split = 64 * a * 48 + 32 * a * 64 + a * 32 * h + 2 * h * 4 * h;  // + the GeLU MLP's two matrices
    INFO("tp " << t);
    CHECK(device == Approx(replicated + split / t).epsilon(1e-12));
  }
}
