// Per-device memory against formulas.md: ZeRO's model states, Korthikanti's Table 2 activations,
// and what a schedule keeps in flight.
#include <catch2/catch.hpp>

#include "core/Errors.hpp"
#include "parallel/MemoryEstimate.hpp"
#include "support/TestPlatforms.hpp"
#include "workload/TransformerModel.hpp"

using namespace clearfog;
using clearfog::parallel::estimate_memory;
using clearfog::parallel::MemoryEstimate;

namespace {
workload::TransformerSpec gpt_7_5b_spec() {
  workload::TransformerSpec w;
  w.layers = 36;
  w.hidden = 4096;
  w.heads = 32;
  w.ffn_hidden = 4 * 4096;
  w.seq_length = 2048;
  w.vocab_size = 51200;
  return w;
}
// Megatron SC21 Table 1's 7.5B model (36 layers, hidden 4096, 32 heads, s 2048, V 51200) on
// A100 80GB with 8 data-parallel replicas.
config::ScenarioSpec gpt_7_5b(DType precision, config::Optimizer optimizer) {
  config::ScenarioSpec sc;
  sc.name = "gpt-7.5b";
  sc.platform.accelerator.name = "A100-SXM4-80GB";
  sc.platform.accelerator.memory_capacity_B = 80e9;
  sc.workload = workload::make_transformer_workload("gpt-7.5b", gpt_7_5b_spec());
  sc.training.global_batch = 512;
  sc.training.micro_batch = 2;
  sc.training.precision = precision;
  sc.training.optimizer = optimizer;
  sc.parallelism.dp = 8;
  // The ZeRO paper's accounting (2 + 2 + 12): no fp32 gradient beside the 16-bit one.
  sc.framework.optimizer.master_copies = false;
  return sc;
}
double parameters(const config::ScenarioSpec& sc) {
  return workload::TransformerModel(test::transformer(sc.workload), sc.training.micro_batch, sc.training.precision)
      .total_parameters();
}
double model_states(const MemoryEstimate& m) { return m.weights_B + m.gradients_B + m.optimizer_B; }
}  // namespace

TEST_CASE("parallel::MemoryEstimate: mixed-precision Adam keeps 16 bytes per parameter", "[memory]") {
  for (const DType precision : {DType::bf16, DType::fp16, DType::fp8}) {
    const auto sc = gpt_7_5b(precision, config::Optimizer::Adam);
    const double psi = parameters(sc);
    const auto m = estimate_memory(sc);
    CHECK(m.weights_B == 2 * psi);
    CHECK(m.gradients_B == 2 * psi);
    CHECK(m.optimizer_B == 12 * psi);
    CHECK(model_states(m) == 16 * psi);
  }
  // ZeRO's example: 7.5B parameters need 120 GB of model states without sharding.
  CHECK(model_states(estimate_memory(gpt_7_5b(DType::bf16, config::Optimizer::Adam))) ==
        Approx(16 * 7.5e9).epsilon(0.005));
}

TEST_CASE("parallel::MemoryEstimate: Megatron's fp32 main gradients, as its distributed-optimizer table counts them",
          "[memory]") {
  // Megatron Core's docs (distrib_optimizer): bytes per parameter, non-distributed and distributed
  // over d ranks: bf16 parameters with fp32 gradients 18 and 6 + 12/d; fp16 parameters and
  // gradients 20 and 4 + 16/d (the fp32 main gradient sharded with the optimizer states).
  const double d = 8;
  auto sc = gpt_7_5b(DType::bf16, config::Optimizer::Adam);
  sc.framework.optimizer.master_copies = true;
  const double psi = parameters(sc);
  SECTION("accumulated into fp32 main_grad (gradient-accumulation fusion)") {
    sc.training.grad_accumulation_fusion = true;
    CHECK(model_states(estimate_memory(sc)) == Approx(18 * psi).epsilon(1e-12));
    sc.parallelism.zero_stage = 1;
    CHECK(model_states(estimate_memory(sc)) == Approx((6 + 12 / d) * psi).epsilon(1e-12));
  }
  SECTION("copied beside the 16-bit gradient") {
    sc.training.precision = DType::fp16;
    sc.training.grad_accumulation_fusion = false;
    CHECK(model_states(estimate_memory(sc)) == Approx(20 * psi).epsilon(1e-12));
    sc.parallelism.zero_stage = 1;
    CHECK(model_states(estimate_memory(sc)) == Approx((4 + 16 / d) * psi).epsilon(1e-12));
  }
  SECTION("ZeRO-2 shards the fp32 gradient, ZeRO-3 the weights too") {
    sc.training.grad_accumulation_fusion = true;
    sc.parallelism.zero_stage = 2;
    CHECK(model_states(estimate_memory(sc)) == Approx((2 + 16 / d) * psi).epsilon(1e-12));
    sc.parallelism.zero_stage = 3;
    CHECK(model_states(estimate_memory(sc)) == Approx(18 / d * psi).epsilon(1e-12));
  }
  SECTION("fp32 training has no separate master gradient") {
    sc.training.precision = DType::fp32;
    CHECK(model_states(estimate_memory(sc)) == Approx(16 * psi).epsilon(1e-12));
  }
}

TEST_CASE("parallel::MemoryEstimate: per-op recomputation keeps its policy's bytes and re-creates one layer's rest",
          "[memory][recompute]") {
  auto sc = gpt_7_5b(DType::bf16, config::Optimizer::Adam);
  sc.training.attention = config::Attention::Fused;
  const auto at = [&](config::Recompute r) {
    sc.training.recompute = r;
    return estimate_memory(sc);
  };
  const auto none = at(config::Recompute::None), op = at(config::Recompute::Op);
  const workload::TransformerModel layer(test::transformer(sc.workload), sc.training.micro_batch, sc.training.precision,
                                         {}, config::Attention::Fused);
  const double all_B = layer.layer_activation_bytes(0, config::Recompute::None);
  const double kept_B = layer.layer_activation_bytes(0, config::Recompute::Op);
  const int layers = test::transformer(sc.workload).layers;
  CHECK(none.activations_B - op.activations_B == Approx(layers * (all_B - kept_B)).epsilon(1e-9));
  CHECK(op.buffers_B - none.buffers_B == Approx(all_B - kept_B).epsilon(1e-9));
}

TEST_CASE("parallel::MemoryEstimate: optimizer states by optimizer and precision", "[memory]") {
  SECTION("mixed-precision SGD with momentum: 2 + 2 + 8") {
    const auto sc = gpt_7_5b(DType::bf16, config::Optimizer::Sgd);
    CHECK(model_states(estimate_memory(sc)) == 12 * parameters(sc));
  }
  SECTION("fp32 Adam: 4 + 4 + 8") {
    const auto sc = gpt_7_5b(DType::fp32, config::Optimizer::Adam);
    const auto m = estimate_memory(sc);
    CHECK(m.weights_B == 4 * parameters(sc));
    CHECK(model_states(m) == 16 * parameters(sc));
  }
  SECTION("tf32 SGD with momentum: 4 + 4 + 4") {
    const auto sc = gpt_7_5b(DType::tf32, config::Optimizer::Sgd);
    CHECK(model_states(estimate_memory(sc)) == 12 * parameters(sc));
  }
  SECTION("int8 is not a training precision") {
    CHECK_THROWS_AS(estimate_memory(gpt_7_5b(DType::int8, config::Optimizer::Adam)), Error);
  }
}

TEST_CASE("parallel::MemoryEstimate: activations follow Korthikanti Table 2 (no parallelism)", "[memory]") {
  const auto sc = gpt_7_5b(DType::bf16, config::Optimizer::Adam);
  const auto& w = test::transformer(sc.workload);
  const double s = w.seq_length, b = sc.training.micro_batch, h = w.hidden, a = w.heads, l = w.layers,
               V = w.vocab_size;
  const double per_layer = s * b * h * (34 + 5 * a * s / h);
  // One micro-batch in flight: every layer's Table 2 bytes, the embedding's dropout mask (one byte
  // per element), and the head's final-norm input, logits input (16-bit each) and fp32 softmax.
  const double embedding = s * b * h, head = 2 * s * b * h + 2 * s * b * h + 4 * b * s * V;
  CHECK(estimate_memory(sc).activations_B == Approx(l * per_layer + embedding + head).epsilon(1e-12));
}

TEST_CASE("parallel::MemoryEstimate: one DDP bucket of communication buffer, capacity from the device",
          "[memory]") {
  auto sc = gpt_7_5b(DType::bf16, config::Optimizer::Adam);
  SECTION("data parallel") {
    const auto m = estimate_memory(sc);
    // one bucket, and the unfused loss's two fp32 gradients of the logits (b s V of them)
    const auto& w = test::transformer(sc.workload);
    const double logits = 1.0 * sc.training.micro_batch * w.seq_length * w.vocab_size;
    CHECK(m.buffers_B == Approx(sc.training.bucket_size_B + 2 * 4 * logits).epsilon(1e-12));
    CHECK(m.capacity_B == 80e9);
    CHECK(m.total_B() == m.weights_B + m.gradients_B + m.optimizer_B + m.activations_B + m.buffers_B);
    CHECK_FALSE(m.fits());  // 16 x 7.5B = 120 GB of model states on an 80 GB device
  }
  SECTION("one replica all-reduces nothing: the loss's transient is left") {
    sc.parallelism.dp = 1;
    const auto& w = test::transformer(sc.workload);
    CHECK(estimate_memory(sc).buffers_B == Approx(2 * 4 * (1.0 * sc.training.micro_batch * w.seq_length * w.vocab_size)));
  }
  SECTION("a model smaller than a bucket") {
    sc.workload = test::with_transformer(sc.workload, [](workload::TransformerSpec& w) {
      w.layers = 1;
      w.hidden = 64;
      w.heads = 4;
      w.ffn_hidden = 256;
      w.vocab_size = 100;
      w.seq_length = 32;
    });
    const auto m = estimate_memory(sc);
    REQUIRE(m.gradients_B < sc.training.bucket_size_B);
    const auto& w = test::transformer(sc.workload);
    CHECK(m.buffers_B == Approx(m.gradients_B + 2 * 4 * (1.0 * sc.training.micro_batch * w.seq_length * w.vocab_size))
                             .epsilon(1e-12));
    CHECK(m.fits());
  }
  SECTION("tensor parallelism shards the model states") {
    const auto one = estimate_memory(sc);
    sc.parallelism.tp = 2;
    sc.parallelism.dp = 1;
    const auto two = estimate_memory(sc);
    CHECK(two.weights_B < one.weights_B);
  }
}

TEST_CASE("parallel::model_state_bytes: ZeRO stages, 7.5B parameters over 64 ranks", "[memory]") {
  const double psi = 7.5e9;
  const int nd = 64;
  auto total = [&](int stage) {
    return parallel::model_state_bytes(psi, DType::fp16, config::Optimizer::Adam, stage, nd).total_B();
  };
  CHECK(total(0) == Approx(16 * psi));                  // 120 GB
  CHECK(total(1) == Approx(4 * psi + 12 * psi / nd));   // 31.4 GB
  CHECK(total(2) == Approx(2 * psi + 14 * psi / nd));   // 16.6 GB
  CHECK(total(3) == Approx(16 * psi / nd));             // 1.9 GB
  CHECK(total(0) / 1e9 == Approx(120).epsilon(1e-3));
  CHECK(total(1) / 1e9 == Approx(31.4).epsilon(2e-3));
  CHECK(total(2) / 1e9 == Approx(16.6).epsilon(3e-3));  // formulas.md rounds 16.64 to 16.6
  CHECK(total(3) / 1e9 == Approx(1.9).epsilon(0.02));
}

TEST_CASE("workload::TransformerModel: layer activations reproduce Korthikanti Table 2", "[memory]") {
  workload::TransformerSpec w;  // the 22B model of Korthikanti Table 4
  w.layers = 48;
  w.hidden = 6144;
  w.heads = 64;
  w.seq_length = 2048;
  w.vocab_size = 51200;
  const int b = 4;
  const double s = 2048, h = 6144, a = 64, t = 8, sbh = s * b * h;
  using R = config::Recompute;
  auto act = [&](int tp, bool sp, R r) {
    return workload::TransformerModel(w, b, DType::bf16, {tp, sp}).layer_activation_bytes(0, r);
  };
  CHECK(act(1, false, R::None) == Approx(sbh * (34 + 5 * a * s / h)));
  CHECK(act(8, false, R::None) == Approx(sbh * (10 + 24 / t + 5 * a * s / (h * t))));
  CHECK(act(8, true, R::None) == Approx(sbh * (34 / t + 5 * a * s / (h * t))));
  CHECK(act(8, false, R::Selective) == Approx(sbh * (10 + 24 / t)));
  CHECK(act(8, true, R::Selective) == Approx(sbh * 34 / t));
  CHECK(act(8, false, R::Full) == Approx(2 * sbh));
  // With sequence parallelism the checkpointed layer input is the rank's s/t slice of the residual
  // stream (Megatron-LM checkpoints hidden_states as they enter the layer, [s/t, b, h]).
  CHECK(act(8, true, R::Full) == Approx(2 * sbh / t));
}

TEST_CASE("parallel::MemoryEstimate: the interleaved schedule holds p(1 + (p-1)/(pv)) micro-batches on stage 0",
          "[memory]") {
  // Korthikanti et al. 2022 §4.2.3 (their "m" is the number of model chunks, our v). The issue
  // that found the old estimate 20 % low: p = 4, m = 8, v = 2 holds 5.5 micro-batches, not 4.375.
  auto sc = gpt_7_5b(DType::bf16, config::Optimizer::Adam);
  // Without dropout the embedding keeps nothing for backward, so stage 0 holds layers only.
  sc.workload = test::with_transformer(sc.workload, [](workload::TransformerSpec& w) {
    w.layers = 32;
    w.dropout = false;
  });
  sc.parallelism.dp = 1;
  sc.parallelism.pp = 4;
  sc.training.micro_batch = 1;
  sc.training.global_batch = 8;
  const auto& w = test::transformer(sc.workload);
  const double per_layer = workload::TransformerModel(w, 1, DType::bf16).layer_activation_bytes(0, config::Recompute::None);
  const double p = 4, v = 2, stage_layers = 32 / p;
  const double held = p * (1 + (p - 1) / (p * v));
  CHECK(held == 5.5);
  SECTION("interleaved") {
    sc.parallelism.schedule = "interleaved";
    sc.parallelism.virtual_stages = 2;
    const auto m = estimate_memory(sc);
    CHECK(m.stage == 0);
    CHECK(m.activations_B == Approx(held * stage_layers * per_layer));
  }
  SECTION("1F1B holds p on stage 0") {
    const auto m = estimate_memory(sc);
    CHECK(m.activations_B == Approx(p * stage_layers * per_layer));
  }
}
