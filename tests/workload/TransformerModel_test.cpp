// The kernels of a GPT layer, embedding and head against the closed forms of formulas.md.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "core/Errors.hpp"
#include "support/SmallTransformer.hpp"
#include "workload/TransformerModel.hpp"

using namespace clearfog;
using clearfog::kernels::Kernel;
using clearfog::kernels::KernelKind;
using clearfog::workload::TransformerModel;
using clearfog::test::small_gpt_shape;

namespace {

// GPT-3 175B (Brown et al. 2020, Table 2.1).
workload::TransformerSpec gpt3_175b() {
  workload::TransformerSpec w;
  w.layers = 96;
  w.hidden = 12288;
  w.heads = 96;
  w.ffn_hidden = 4 * 12288;
  w.seq_length = 2048;
  w.vocab_size = 51200;
  return w;
}

double sum_flops(const std::vector<Kernel>& kernels, KernelKind kind) {
  double total = 0;
  for (const auto& k : kernels)
    if (k.kind == kind) total += k.flops;
  return total;
}

// Korthikanti et al. 2022, Eq. 7 (formulas.md): model FLOPs of an iteration over B sequences.
double korthikanti_eq7(const workload::TransformerSpec& w, double B) {
  const double l = w.layers, s = w.seq_length, h = w.hidden, V = w.vocab_size;
  return 72 * B * l * s * h * h * (1 + s / (6 * h) + V / (12 * h * l));
}

// Megatron SC21 Eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)).
double megatron_eq2(const workload::TransformerSpec& w) {
  const double l = w.layers, s = w.seq_length, h = w.hidden, V = w.vocab_size;
  return 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
}

std::vector<std::string> names(const std::vector<Kernel>& kernels) {
  std::vector<std::string> out;
  for (const auto& k : kernels) out.push_back(k.name);
  return out;
}

}  // namespace

TEST_CASE("workload::TransformerModel: forward GEMM FLOPs match 24bsh^2(1+s/6h)", "[workload]") {
  const auto w = small_gpt_shape();
  const int b = 2;
  const TransformerModel model(w, b, DType::bf16);
  const double s = w.seq_length, h = w.hidden;
  const double gemm_flops = sum_flops(model.layer_forward(), KernelKind::Gemm);
  // Expanded form: every term is an integer below 2^53, so the sum is exact.
  CHECK(gemm_flops == 24 * b * s * h * h + 4 * b * s * s * h);
  CHECK(gemm_flops == Approx(24 * b * s * h * h * (1 + s / (6 * h))).epsilon(1e-15));
}

TEST_CASE("workload::TransformerModel: layer kernels run in Megatron's order", "[workload]") {
  const TransformerModel model(small_gpt_shape(), 1, DType::bf16);
  CHECK(names(model.layer_forward()) ==
        std::vector<std::string>{"ln1", "qkv", "attn_scores", "softmax", "attn_dropout", "attn_v", "proj",
                                 "dropout_add1", "ln2", "fc1", "gelu", "fc2", "dropout_add2"});
  CHECK(names(model.layer_backward()) ==
        std::vector<std::string>{"dropout_add2.bwd", "fc2.dgrad", "fc2.wgrad", "gelu.bwd", "fc1.dgrad",
                                 "fc1.wgrad", "ln2.bwd", "dropout_add1.bwd", "proj.dgrad", "proj.wgrad",
                                 "attn_v.dprobs", "attn_v.dv", "attn_dropout.bwd", "softmax.bwd",
                                 "attn_scores.dq", "attn_scores.dk", "qkv.dgrad", "qkv.wgrad", "ln1.bwd"});
}

TEST_CASE("workload::TransformerModel: GEMM shapes of the forward and its gradients", "[workload]") {
  const auto w = small_gpt_shape();
  const long long b = 2, s = w.seq_length, h = w.hidden, a = w.heads, f = w.ffn_hidden;
  const TransformerModel model(w, static_cast<int>(b), DType::bf16);
  const auto fwd = model.layer_forward();
  const auto bwd = model.layer_backward();
  const auto shape_is = [](const Kernel& k, long long m, long long n, long long kk, long long batch) {
    CHECK(k.kind == KernelKind::Gemm);
    CHECK(k.gemm.m == m);
    CHECK(k.gemm.n == n);
    CHECK(k.gemm.k == kk);
    CHECK(k.gemm.batch == batch);
  };
  shape_is(test::find_kernel(fwd, "qkv"), b * s, 3 * h, h, 1);
  shape_is(test::find_kernel(fwd, "attn_scores"), s, s, h / a, b * a);
  shape_is(test::find_kernel(fwd, "attn_v"), s, h / a, s, b * a);
  shape_is(test::find_kernel(fwd, "proj"), b * s, h, h, 1);
  shape_is(test::find_kernel(fwd, "fc1"), b * s, f, h, 1);
  shape_is(test::find_kernel(fwd, "fc2"), b * s, h, f, 1);
  // Y[m x n] = X[m x k] W[k x n]: dgrad (m, k, n), wgrad (k, n, m)
  shape_is(test::find_kernel(bwd, "fc1.dgrad"), b * s, h, f, 1);
  shape_is(test::find_kernel(bwd, "fc1.wgrad"), h, f, b * s, 1);
  shape_is(test::find_kernel(bwd, "qkv.dgrad"), b * s, h, 3 * h, 1);
  shape_is(test::find_kernel(bwd, "qkv.wgrad"), h, 3 * h, b * s, 1);
  // each attention gradient GEMM does the FLOPs of its forward
  CHECK(test::find_kernel(bwd, "attn_scores.dq").flops == test::find_kernel(fwd, "attn_scores").flops);
  CHECK(test::find_kernel(bwd, "attn_scores.dk").flops == test::find_kernel(fwd, "attn_scores").flops);
  CHECK(test::find_kernel(bwd, "attn_v.dprobs").flops == test::find_kernel(fwd, "attn_v").flops);
  CHECK(test::find_kernel(bwd, "attn_v.dv").flops == test::find_kernel(fwd, "attn_v").flops);
}

TEST_CASE("workload::TransformerModel: layer backward GEMM FLOPs are twice the forward's", "[workload]") {
  const TransformerModel model(small_gpt_shape(), 3, DType::fp16);
  CHECK(sum_flops(model.layer_backward(), KernelKind::Gemm) ==
        2 * sum_flops(model.layer_forward(), KernelKind::Gemm));
}

TEST_CASE("workload::TransformerModel: memory-bound bytes count e-byte elements and 1-byte masks",
          "[workload]") {
  const auto w = small_gpt_shape();
  const double b = 2, s = w.seq_length, h = w.hidden, a = w.heads, f = w.ffn_hidden;
  const double N = b * s * h, A = b * a * s * s;
  for (const DType dtype : {DType::bf16, DType::fp32}) {
    const double e = dtype_bytes(dtype);
    const TransformerModel model(w, 2, dtype);
    const auto fwd = model.layer_forward();
    const auto bwd = model.layer_backward();
    CHECK(test::find_kernel(fwd, "ln1").bytes == 2 * N * e);
    CHECK(test::find_kernel(fwd, "softmax").bytes == 2 * A * e);
    CHECK(test::find_kernel(fwd, "attn_dropout").bytes == A * (2 * e + 1));
    CHECK(test::find_kernel(fwd, "dropout_add1").bytes == N * (3 * e + 1));
    CHECK(test::find_kernel(fwd, "gelu").bytes == 2 * b * s * f * e);
    // backward: dy + saved input + residual gradient in, dx out
    CHECK(test::find_kernel(bwd, "ln1.bwd").bytes == 4 * N * e);
    CHECK(test::find_kernel(bwd, "softmax.bwd").bytes == 3 * A * e);
    CHECK(test::find_kernel(bwd, "attn_dropout.bwd").bytes == A * (2 * e + 1));
    CHECK(test::find_kernel(bwd, "dropout_add1.bwd").bytes == N * (2 * e + 1));
    CHECK(test::find_kernel(bwd, "gelu.bwd").bytes == 3 * b * s * f * e);
  }
}

TEST_CASE("workload::TransformerModel: head and embedding", "[workload]") {
  const auto w = small_gpt_shape();
  const double b = 2, s = w.seq_length, h = w.hidden, V = w.vocab_size, e = 2;
  const TransformerModel model(w, 2, DType::bf16);
  const auto head = model.head_forward();
  CHECK(names(head) == std::vector<std::string>{"final_ln", "logits", "cross_entropy"});
  CHECK(test::find_kernel(head, "logits").flops == 2 * b * s * h * V);
  // Megatron's fp32 loss: cast (e + 4), max (4), subtract (8), exp (8), sum (4), divide (8)
  CHECK(test::find_kernel(head, "cross_entropy").bytes == b * s * V * (e + 4 + 4 + 8 + 8 + 4 + 8));
  // backward: scale the saved softmax in place (8), cast back (4 + e)
  CHECK(test::find_kernel(model.head_backward(), "cross_entropy.bwd").bytes == b * s * V * (8 + 4 + e));
  CHECK(sum_flops(model.head_backward(), KernelKind::Gemm) == 2 * 2 * b * s * h * V);
  CHECK(names(model.head_backward()) ==
        std::vector<std::string>{"cross_entropy.bwd", "logits.dgrad", "logits.wgrad", "final_ln.bwd"});
  // embedding lookups and their scatter carry no GEMM FLOPs
  CHECK(sum_flops(model.embedding_forward(), KernelKind::Gemm) == 0);
  CHECK(sum_flops(model.embedding_backward(), KernelKind::Gemm) == 0);
  CHECK(model.embedding_forward().at(0).bytes == (2 * b * s * h + s * h) * e);
}

TEST_CASE("workload::TransformerModel: an iteration's GEMM FLOPs equal Korthikanti Eq. 7", "[workload]") {
  const auto w = GENERATE(small_gpt_shape(), gpt3_175b());
  const int b = GENERATE(1, 4);
  const int global_batch = 64;
  const TransformerModel model(w, b, DType::bf16);
  const double per_micro_batch =
      w.layers * (sum_flops(model.layer_forward(), KernelKind::Gemm) +
                  sum_flops(model.layer_backward(), KernelKind::Gemm)) +
      sum_flops(model.head_forward(), KernelKind::Gemm) + sum_flops(model.head_backward(), KernelKind::Gemm) +
      sum_flops(model.embedding_forward(), KernelKind::Gemm) + sum_flops(model.embedding_backward(), KernelKind::Gemm);
  const double iteration = per_micro_batch * (global_batch / b);
  CHECK(iteration == Approx(korthikanti_eq7(w, global_batch)).epsilon(1e-9));
}

TEST_CASE("workload::TransformerModel: parameters per layer 4h^2 + 2hf + 9h + f", "[workload]") {
  auto w = small_gpt_shape();
  const double h = w.hidden;
  SECTION("f = 4h gives Megatron's 12h^2 + 13h") {
    const TransformerModel model(w, 1, DType::bf16);
    CHECK(model.parameters_per_layer() == 12 * h * h + 13 * h);
  }
  SECTION("general f: QKV 3h^2+3h, proj h^2+h, fc1 hf+f, fc2 fh+h, layernorms 4h") {
    w.ffn_hidden = 3 * w.hidden + 64;
    const double f = w.ffn_hidden;
    const TransformerModel model(w, 1, DType::bf16);
    CHECK(model.parameters_per_layer() == (3 * h * h + 3 * h) + (h * h + h) + (h * f + f) + (f * h + h) + 4 * h);
  }
  SECTION("ffn_hidden 0 defaults to 4h") {
    w.ffn_hidden = 0;
    const TransformerModel model(w, 1, DType::bf16);
    CHECK(model.spec().resolved_ffn_hidden() == 4 * w.hidden);
    CHECK(model.parameters_per_layer() == 12 * h * h + 13 * h);
  }
}

TEST_CASE("workload::TransformerModel: total parameters against Megatron Eq. 2", "[workload]") {
  const auto w = GENERATE(small_gpt_shape(), gpt3_175b());
  const TransformerModel model(w, 1, DType::bf16);
  const double l = w.layers, h = w.hidden, s = w.seq_length, V = w.vocab_size;
  // Own derivation, exactly: layers + token and position embeddings + final layernorm (tied head).
  CHECK(model.total_parameters() == l * (12 * h * h + 13 * h) + (V + s) * h + 2 * h);
  // Eq. 2 is the same count without the final layernorm's 2h, so it matches to within 2h/P
  // (1.5e-4 for the small model, 1.4e-7 for GPT-3): that relative gap is the tolerance.
  const double eq2 = megatron_eq2(w);
  CHECK(model.total_parameters() == Approx(eq2 + 2 * h).epsilon(1e-12));
  CHECK(model.total_parameters() == Approx(eq2).epsilon(2 * h / eq2 * 1.000001));
}

TEST_CASE("workload::TransformerModel: GPT-3 has 175B parameters", "[workload]") {
  // Brown et al. 2020 report 175.0B; Eq. 2 gives ~174.6B (the paper rounds).
  const auto w = gpt3_175b();
  const double published = 175.0e9;
  CHECK(megatron_eq2(w) == Approx(published).epsilon(0.005));
  CHECK(TransformerModel(w, 1, DType::bf16).total_parameters() == Approx(published).epsilon(0.005));
}

TEST_CASE("workload::TransformerModel: cross-entropy passes of Megatron's fp32 loss", "[workload]") {
  // Per logit, forward: cast 2 + 4, max 4, subtract 4 + 4, exp 4 + 4, sum 4, divide 4 + 4 = 38 B
  // from 16-bit logits; backward: scale in place 4 + 4, cast back 4 + 2 = 14 B.
  CHECK(workload::cross_entropy_forward_bytes_per_logit(2) == 38);
  CHECK(workload::cross_entropy_backward_bytes_per_logit(2) == 14);
  // fp32 logits skip both casts.
  CHECK(workload::cross_entropy_forward_bytes_per_logit(4) == 32);
  CHECK(workload::cross_entropy_backward_bytes_per_logit(4) == 8);
}

TEST_CASE("workload::TransformerModel: rejects impossible shapes", "[workload]") {
  auto w = small_gpt_shape();
  SECTION("heads do not divide hidden") {
    w.heads = 7;
    CHECK_THROWS_WITH(TransformerModel(w, 1, DType::bf16), Catch::Contains("divisible"));
  }
  SECTION("zero layers") {
    w.layers = 0;
    CHECK_THROWS_WITH(TransformerModel(w, 1, DType::bf16), Catch::Contains("layers"));
  }
  SECTION("negative ffn_hidden") {
    w.ffn_hidden = -1;
    CHECK_THROWS_AS(TransformerModel(w, 1, DType::bf16), Error);
  }
  SECTION("zero micro-batch") {
    CHECK_THROWS_WITH(TransformerModel(w, 0, DType::bf16), Catch::Contains("micro_batch"));
  }
}

TEST_CASE("workload::TransformerModel: eager pointwise ops move the bytes their op chains do", "[workload]") {
  // torchtitan's RMSNorm, SwiGLU gate and rotary embedding as PyTorch ops (docs/frameworks.md,
  // "Eager pointwise ops"): per element, with e = 2 (bf16) and f = 4 (fp32), the norm moves
  // 4e + 7f forward and 9e + 13f (+ 3e for the residual's gradient sum inside a layer) backward,
  // the gate 5e and 9e per hidden element, the rotary embedding 2e + 4f each way per q and k element.
  auto w = small_gpt_shape();
  w.norm = workload::NormKind::RmsNorm;
  w.mlp = workload::MlpKind::SwiGlu;
  w.position = workload::PositionKind::Rotary;
  w.bias = false;
  w.dropout = false;
  config::KernelFusions eager;
  eager.pointwise = false;
  const int b = 2;
  const TransformerModel fused(w, b, DType::bf16, {}, config::Attention::Fused);
  const TransformerModel model(w, b, DType::bf16, {}, config::Attention::Fused, eager);
  const double e = 2, f = 4;
  const double N = static_cast<double>(b) * w.seq_length * w.hidden;  // q and k: N each (no GQA)
  const double F = static_cast<double>(b) * w.seq_length * w.ffn_hidden;
  const auto bytes = [](const std::vector<Kernel>& ks) {
    double total = 0;
    for (const auto& k : ks)
      if (k.kind == KernelKind::MemoryBound) total += k.bytes;
    return total;
  };
  // attention forward: one norm and the rotary embedding on q and k; fused: 2e and 2e.
  const double attn_fwd = bytes(model.attention_forward()) - bytes(fused.attention_forward());
  CHECK(attn_fwd == Approx((4 * e + 7 * f - 2 * e) * N + (2 * e + 4 * f - 2 * e) * 2 * N).epsilon(1e-12));
  // MLP forward: one norm and the gate (fused: 3e per hidden element).
  const double mlp_fwd = bytes(model.mlp_forward()) - bytes(fused.mlp_forward());
  CHECK(mlp_fwd == Approx((4 * e + 7 * f - 2 * e) * N + (5 * e - 3 * e) * F).epsilon(1e-12));
  // MLP backward: the gate (fused 5e); attention backward: both norms with the residual's sum
  // (ln2's at its start, ln1's at its end, where Megatron's backward all-reduces cut the layer;
  // fused 4e each), the rotary embedding.
  const double mlp_bwd = bytes(model.mlp_backward()) - bytes(fused.mlp_backward());
  CHECK(mlp_bwd == Approx((9 * e - 5 * e) * F).epsilon(1e-12));
  const double attn_bwd = bytes(model.attention_backward()) - bytes(fused.attention_backward());
  CHECK(attn_bwd ==
        Approx(2 * (9 * e + 13 * f + 3 * e - 4 * e) * N + (2 * e + 4 * f - 2 * e) * 2 * N).epsilon(1e-12));
  // One kernel per op: the norm's six forward ops, the gate's two, the rotary embedding's three.
  CHECK(model.mlp_forward().size() == fused.mlp_forward().size() + 5 + 1);
}
