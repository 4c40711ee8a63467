// Per-op selective checkpointing as torchtitan's policy runs it (docs/recompute.md): the outputs of
// the 1st, 3rd, 5th... plain matrix product of a layer and of the fused attention are kept, the
// rest re-runs. Checked on a hand-made kernel list and on a Llama layer against the closed forms
// of what the policy keeps and recomputes.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support/TestPlatforms.hpp"
#include "workload/OpCheckpointPolicy.hpp"
#include "workload/TransformerModel.hpp"

using namespace clearfog;
using kernels::GemmShape;
using kernels::Kernel;

namespace {

std::vector<std::string> names(const std::vector<Kernel>& ks) {
  std::vector<std::string> out;
  for (const auto& k : ks) out.push_back(k.name);
  return out;
}

}  // namespace

TEST_CASE("workload::split_op_checkpoint: every second aten.mm and every other op re-runs", "[workload][recompute]") {
  const double e = 2;
  const std::vector<Kernel> forward = {
      Kernel::make_gemm("mm1", GemmShape{64, 32, 16, 1}, DType::bf16),
      Kernel::make_memory_bound("norm", 1000, 10, DType::bf16),
      Kernel::make_gemm("mm2", GemmShape{64, 48, 16, 1}, DType::bf16),
      Kernel::make_fused_attention("attention", kernels::AttentionShape{4, 64, 8, false}, DType::bf16),
      Kernel::make_gemm("bmm", GemmShape{64, 64, 8, 4}, DType::bf16),  // batched: aten.bmm, not in the list
      Kernel::make_gemm("mm3", GemmShape{64, 16, 32, 1}, DType::bf16),
      Kernel::make_gemm("mm4", GemmShape{64, 8, 32, 1}, DType::bf16),
      Kernel::make_grouped_gemm("experts", {GemmShape{8, 8, 8, 1}}, DType::bf16)};
  const auto split = workload::split_op_checkpoint(forward, e);
  CHECK(names(split.recomputed) == std::vector<std::string>{"norm", "mm2", "bmm", "mm4", "experts"});
  // mm1's and mm3's outputs, the attention output and its fp32 logsumexp per query row and head
  const double expected = (64.0 * 32 + 64.0 * 16) * e + 4.0 * 64 * (8 * e + 4);
  CHECK(split.saved_B == Approx(expected).epsilon(1e-12));
}

TEST_CASE("workload::TransformerModel: per-op checkpointing of a Llama layer keeps wq, wv, w1, w2 and re-runs wk, wo, w3",
          "[workload][recompute]") {
  auto w = test::small_gpt_spec();
  w.mlp = workload::MlpKind::SwiGlu;
  w.norm = workload::NormKind::RmsNorm;
  w.position = workload::PositionKind::Rotary;
  w.bias = false;
  w.kv_heads = 2;
  w.ffn_hidden = 1408;
  constexpr int b = 2;
  constexpr double e = 2;  // bf16
  const config::KernelFusions torchtitan{.projections = false};
  const workload::TransformerModel model(w, b, DType::bf16, {}, config::Attention::Fused, torchtitan);
  const double tokens = 1.0 * b * w.seq_length, h = w.hidden, f = w.ffn_hidden;
  const double kv = h / w.heads * w.kv_heads;
  const auto split = model.op_checkpoint(0);
  std::vector<std::string> gemms;
  double recomputed_flops = 0;
  for (const auto& k : split.recomputed)
    if (k.kind == kernels::KernelKind::Gemm) {
      gemms.push_back(k.name);
      recomputed_flops += k.flops;
    }
  CHECK(gemms == std::vector<std::string>{"k", "proj", "fc1_up"});
  CHECK(recomputed_flops == Approx(2 * tokens * h * (kv + h + f)).epsilon(1e-12));
  // kept: wq's (h), wv's (kv), w1's (f) and w2's (h) outputs, the attention output (h) and its
  // logsumexp; with the layer input (h) what layer_activation_bytes counts under op
  const double kept = tokens * (h + kv + f + h + h) * e + 4.0 * b * w.heads * w.seq_length;
  CHECK(split.saved_B == Approx(kept).epsilon(1e-12));
  CHECK(model.layer_activation_bytes(0, config::Recompute::Op) == Approx(kept + tokens * h * e).epsilon(1e-12));
  // between none's and full's
  CHECK(model.layer_activation_bytes(0, config::Recompute::Op) < model.layer_activation_bytes(0, config::Recompute::None));
  CHECK(model.layer_activation_bytes(0, config::Recompute::Op) > model.layer_activation_bytes(0, config::Recompute::Full));

  SECTION("with sequence parallelism it also keeps the two reduce-scatters' outputs, b s h e / t each") {
    constexpr int t = 2;
    const workload::TransformerModel sharded(w, b, DType::bf16, {.tp = t, .sequence_parallel = true},
                                             config::Attention::Fused, torchtitan);
    const auto unsharded_gemms = workload::TransformerModel(w, b, DType::bf16, {.tp = t}, config::Attention::Fused,
                                                            torchtitan)
                                     .op_checkpoint(0)
                                     .saved_B;
    CHECK(sharded.op_checkpoint(0).saved_B == Approx(unsharded_gemms + 2 * tokens * h / t * e).epsilon(1e-12));
  }
  SECTION("the unfused attention's products are aten.bmm even with one instance (micro-batch 1, one head per rank)") {
    auto one_head = w;
    one_head.heads = 2;
    one_head.kv_heads = 2;
    const workload::TransformerModel unfused(one_head, 1, DType::bf16, {.tp = 2}, config::Attention::Unfused, torchtitan);
    std::vector<std::string> recomputed;
    std::vector<std::string> forward_gemms;
    for (const auto& k : unfused.layer_forward())
      if (k.kind == kernels::KernelKind::Gemm) forward_gemms.push_back(k.name);
    for (const auto& k : unfused.op_checkpoint(0).recomputed)
      if (k.kind == kernels::KernelKind::Gemm) recomputed.push_back(k.name);
    CHECK(recomputed == std::vector<std::string>{"k", "attn_scores", "attn_v", "proj", "fc1_up"});
    CHECK(forward_gemms.size() == 9);  // q k v, scores, attn_v, proj, gate up down
  }
}
