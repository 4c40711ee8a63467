// A transformer layer with fused attention (training.attention: fused): the kernel list, its FLOPs
// and bytes against the closed forms of docs/compute-model.md ("Fused attention"), its time against
// the unfused kernels, and the activation memory without Korthikanti's 5as/h term.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "parallel/MemoryEstimate.hpp"
#include "workload/TransformerModel.hpp"
#include "workload/types/TransformerType.hpp"

using namespace clearfog;
using clearfog::config::Attention;
using clearfog::kernels::Kernel;
using clearfog::kernels::KernelKind;
using clearfog::workload::TensorSharding;
using clearfog::workload::TransformerModel;

namespace {

// Megatron SC21 Table 1's 7.5B model at sequence length `s`.
workload::TransformerSpec gpt_7_5b(int s) {
  workload::TransformerSpec w;
  w.layers = 36;
  w.hidden = 4096;
  w.heads = 32;
  w.ffn_hidden = 4 * 4096;
  w.seq_length = s;
  w.vocab_size = 51200;
  return w;
}

std::vector<std::string> names(const std::vector<Kernel>& kernels) {
  std::vector<std::string> out;
  for (const auto& k : kernels) out.push_back(k.name);
  return out;
}

const Kernel& find(const std::vector<Kernel>& kernels, const std::string& name) {
  const auto it = std::find_if(kernels.begin(), kernels.end(), [&](const Kernel& k) { return k.name == name; });
  REQUIRE(it != kernels.end());
  return *it;
}

bool is_attention(const std::string& name) {
  for (const char* prefix : {"attn_scores", "softmax", "attn_dropout", "attn_v", "attention"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

// Time of the attention kernels of a kernel list.
double attention_seconds(const std::vector<Kernel>& kernels, const kernels::KernelCostModel& costs) {
  double total = 0;
  for (const auto& k : kernels)
    if (is_attention(k.name)) total += costs.cost(k).time_s;
  return total;
}

}  // namespace

TEST_CASE("workload::TransformerModel: fused attention replaces the four attention kernels by one",
          "[workload]") {
  const TransformerModel model(gpt_7_5b(2048), 1, DType::bf16, TensorSharding{8, true}, Attention::Fused);
  CHECK(model.attention() == Attention::Fused);
  CHECK(names(model.layer_forward()) ==
        std::vector<std::string>{"ln1", "qkv", "attention", "proj", "dropout_add1", "ln2", "fc1", "gelu", "fc2",
                                 "dropout_add2"});
  CHECK(names(model.layer_backward()) ==
        std::vector<std::string>{"dropout_add2.bwd", "fc2.dgrad", "fc2.wgrad", "gelu.bwd", "fc1.dgrad",
                                 "fc1.wgrad", "ln2.bwd", "dropout_add1.bwd", "proj.dgrad", "proj.wgrad",
                                 "attention.bwd", "qkv.dgrad", "qkv.wgrad", "ln1.bwd"});
  // The all-reduce cuts stay where they were.
  CHECK(model.attention_forward().back().name == "proj");
  CHECK(model.mlp_backward().back().name == "fc1.wgrad");
  // Selective recomputation has nothing to re-run: the fused backward recomputes the scores.
  CHECK(model.attention_core_forward().empty());
  const TransformerModel unfused(gpt_7_5b(2048), 1, DType::bf16, TensorSharding{8, true});
  CHECK(unfused.attention() == Attention::Unfused);
  CHECK(names(unfused.attention_core_forward()) ==
        std::vector<std::string>{"attn_scores", "softmax", "attn_dropout", "attn_v"});
}

TEST_CASE("workload::TransformerModel: fused attention FLOPs and bytes, per tensor-parallel rank", "[workload]") {
  const auto w = gpt_7_5b(2048);
  for (const int t : {1, 8}) {
    const double b = 2, s = w.seq_length, h = w.hidden, a = w.heads, d = h / a, e = 2;
    const TransformerModel fused(w, 2, DType::bf16, TensorSharding{t, false}, Attention::Fused);
    const TransformerModel unfused(w, 2, DType::bf16, TensorSharding{t, false}, Attention::Unfused);
    const Kernel fwd = find(fused.layer_forward(), "attention");  // a copy: the list is a temporary
    const Kernel bwd = find(fused.layer_backward(), "attention.bwd");
    CHECK(fwd.kind == KernelKind::FusedAttention);
    CHECK(fwd.attention.batch_heads == 2 * 32 / t);
    CHECK(fwd.attention.head_dim == 128);
    // a/t heads of d = h/a: forward 4*s^2*d per head = 4*b*s^2*h/t, the FLOPs of attn_scores + attn_v.
    CHECK(fwd.flops == 4 * b * s * s * h / t);
    const auto unfused_fwd = unfused.layer_forward();
    CHECK(fwd.flops == find(unfused_fwd, "attn_scores").flops + find(unfused_fwd, "attn_v").flops);
    // Backward 10*s^2*d per head: the four unfused gradient GEMMs plus S recomputed.
    CHECK(bwd.flops == 10 * b * s * s * h / t);
    CHECK(bwd.flops == 2.5 * fwd.flops);
    // Bytes: Q, K, V, O (+ dO, dQ, dK, dV) and an fp32 logsumexp per row; nothing of size s^2.
    CHECK(fwd.bytes == b * (a / t) * (4 * s * d * e + 4 * s));
    CHECK(bwd.bytes == b * (a / t) * (8 * s * d * e + 4 * s));
  }
  // Linear in s: doubling the sequence doubles the traffic exactly.
  const TransformerModel s2k(gpt_7_5b(2048), 1, DType::bf16, TensorSharding{}, Attention::Fused);
  const TransformerModel s4k(gpt_7_5b(4096), 1, DType::bf16, TensorSharding{}, Attention::Fused);
  CHECK(find(s4k.layer_forward(), "attention").bytes == 2 * find(s2k.layer_forward(), "attention").bytes);
  CHECK(find(s4k.layer_backward(), "attention.bwd").bytes == 2 * find(s2k.layer_backward(), "attention.bwd").bytes);
}

TEST_CASE("workload::TransformerModel: on an A100 fused attention beats the unfused kernels at long sequences",
          "[workload]") {
  const auto a100 = config::load_accelerator(std::filesystem::path(CLEARFOG_SOURCE_DIR) /
                                             "platforms/accelerators/a100-sxm4-80gb.yaml");
  const kernels::BlockedGemmModel costs(a100);
  for (const int s : {2048, 4096, 8192}) {
    for (const int t : {1, 8}) {
      const TransformerModel fused(gpt_7_5b(s), 1, DType::bf16, TensorSharding{t, true}, Attention::Fused);
      const TransformerModel unfused(gpt_7_5b(s), 1, DType::bf16, TensorSharding{t, true}, Attention::Unfused);
      INFO("s=" << s << " t=" << t);
      const double fused_fwd = attention_seconds(fused.layer_forward(), costs);
      const double unfused_fwd = attention_seconds(unfused.layer_forward(), costs);
      const double fused_bwd = attention_seconds(fused.layer_backward(), costs);
      const double unfused_bwd = attention_seconds(unfused.layer_backward(), costs);
      CHECK(fused_fwd < unfused_fwd);
      // The fused backward does 10/8 of the unfused backward's GEMM FLOPs and still wins: the
      // unfused softmax and dropout backward alone move (5e + 1)*b*a*s^2/t bytes through HBM.
      CHECK(fused_bwd < unfused_bwd);
      // And selective recomputation costs the unfused core's forward again, the fused nothing.
      const double unfused_core = attention_seconds(unfused.attention_core_forward(), costs);
      CHECK(fused_fwd + fused_bwd < unfused_fwd + unfused_bwd + unfused_core);
    }
  }
}

TEST_CASE("workload::TransformerModel: fused attention drops Korthikanti's 5as/h term, keeps a logsumexp",
          "[workload][memory]") {
  const auto w = gpt_7_5b(2048);
  const int b = 4;
  const double s = 2048, h = 4096, a = 32, sbh = s * b * h;
  using R = config::Recompute;
  for (const int tp : {1, 2, 8}) {
    const double t = tp;
    for (const bool sp : {false, true}) {
      auto act = [&](R r, Attention attention, DType precision) {
        return TransformerModel(w, b, precision, TensorSharding{tp, sp}, attention).layer_activation_bytes(0, r);
      };
      INFO("tp=" << tp << " sp=" << sp);
      // 16-bit: the softmax output (2as^2b), dropout mask (as^2b) and dropout output (2as^2b) per
      // rank go; the fp32 logsumexp, 4 bytes per query row of each of the rank's a/t heads, comes.
      const double scores = sbh * 5 * a * s / (h * t);
      const double logsumexp = 4 * b * a * s / t;
      CHECK(act(R::None, Attention::Unfused, DType::bf16) - act(R::None, Attention::Fused, DType::bf16) ==
            Approx(scores - logsumexp).epsilon(1e-12));
      // 4-byte activations double the softmax output and the dropout output, not the one-byte mask
      // (9 instead of 5 bytes per score) nor the fp32 logsumexp.
      CHECK(act(R::None, Attention::Unfused, DType::fp32) - act(R::None, Attention::Fused, DType::fp32) ==
            Approx(scores * 9 / 5 - logsumexp).epsilon(1e-12));
      // Selective recomputation already dropped the term; fused keeps the logsumexp instead of recomputing.
      CHECK(act(R::Selective, Attention::Fused, DType::bf16) ==
            Approx(act(R::Selective, Attention::Unfused, DType::bf16) + logsumexp).epsilon(1e-12));
      // Full recomputation keeps the layer input only, either way.
      CHECK(act(R::Full, Attention::Fused, DType::bf16) == act(R::Full, Attention::Unfused, DType::bf16));
    }
  }
  // The default is unfused: Korthikanti's Table 2 unchanged.
  CHECK(TransformerModel(w, b, DType::bf16).layer_activation_bytes(0, R::None) == Approx(sbh * (34 + 5 * a * s / h)));
}

TEST_CASE("parallel::estimate_memory: fused attention saves l times the per-layer difference", "[workload][memory]") {
  config::ScenarioSpec sc;
  sc.name = "gpt-7.5b";
  sc.platform.accelerator.memory_capacity_B = 80e9;
  sc.workload = workload::make_transformer_workload("gpt-7.5b", gpt_7_5b(2048));
  sc.training.global_batch = 16;
  sc.training.micro_batch = 2;
  sc.parallelism.dp = 8;
  const auto unfused = parallel::estimate_memory(sc);
  sc.training.attention = Attention::Fused;
  const auto fused = parallel::estimate_memory(sc);
  const double l = 36, b = 2, s = 2048, h = 4096, a = 32;
  CHECK(unfused.activations_B - fused.activations_B == Approx(l * (s * b * h * 5 * a * s / h - 4 * b * a * s)));
  CHECK(unfused.weights_B + unfused.gradients_B + unfused.optimizer_B ==
        fused.weights_B + fused.gradients_B + fused.optimizer_B);
}
