// Per-device memory of data-parallel training: ZeRO's model states, Korthikanti's activations.
#include <catch2/catch.hpp>

#include "core/Errors.hpp"
#include "workload/MemoryEstimate.hpp"
#include "workload/TransformerModel.hpp"

using namespace clearfog;
using clearfog::workload::estimate_memory;
using clearfog::workload::MemoryEstimate;

namespace {
// Megatron SC21 Table 1's 7.5B model (36 layers, hidden 4096, 32 heads, s 2048, V 51200) on
// A100 80GB with 8 data-parallel replicas.
config::ScenarioSpec gpt_7_5b(DType precision, config::Optimizer optimizer) {
  config::ScenarioSpec sc;
  sc.name = "gpt-7.5b";
  sc.platform.accelerator.name = "A100-SXM4-80GB";
  sc.platform.accelerator.memory_capacity_B = 80e9;
  sc.workload.layers = 36;
  sc.workload.hidden = 4096;
  sc.workload.heads = 32;
  sc.workload.ffn_hidden = 4 * 4096;
  sc.workload.seq_length = 2048;
  sc.workload.vocab_size = 51200;
  sc.training.global_batch = 512;
  sc.training.micro_batch = 2;
  sc.training.precision = precision;
  sc.training.optimizer = optimizer;
  sc.parallelism.dp = 8;
  return sc;
}
double parameters(const config::ScenarioSpec& sc) {
  return workload::TransformerModel(sc.workload, sc.training.micro_batch, sc.training.precision).total_parameters();
}
double model_states(const MemoryEstimate& m) { return m.weights_B + m.gradients_B + m.optimizer_B; }
}  // namespace

TEST_CASE("workload::MemoryEstimate: mixed-precision Adam keeps 16 bytes per parameter", "[workload]") {
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

TEST_CASE("workload::MemoryEstimate: optimizer states by optimizer and precision", "[workload]") {
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

TEST_CASE("workload::MemoryEstimate: activations follow Korthikanti Table 2 (no parallelism)", "[workload]") {
  const auto sc = gpt_7_5b(DType::bf16, config::Optimizer::Adam);
  const double s = sc.workload.seq_length, b = sc.training.micro_batch, h = sc.workload.hidden,
               a = sc.workload.heads, l = sc.workload.layers, V = sc.workload.vocab_size;
  const double per_layer = s * b * h * (34 + 5 * a * s / h);
  CHECK(workload::activation_bytes_per_layer(sc.workload, sc.training.micro_batch, DType::bf16) ==
        Approx(per_layer).epsilon(1e-12));
  // one micro-batch in flight, plus the fp32 softmax of the logits
  CHECK(estimate_memory(sc).activations_B == Approx(l * per_layer + b * s * V * 4).epsilon(1e-12));
  // 4-byte activations are counted twice as large
  CHECK(workload::activation_bytes_per_layer(sc.workload, sc.training.micro_batch, DType::fp32) ==
        Approx(2 * per_layer).epsilon(1e-12));
}

TEST_CASE("workload::MemoryEstimate: one DDP bucket of communication buffer, capacity from the device",
          "[workload]") {
  auto sc = gpt_7_5b(DType::bf16, config::Optimizer::Adam);
  SECTION("data parallel") {
    const auto m = estimate_memory(sc);
    CHECK(m.buffers_B == sc.training.bucket_size_B);
    CHECK(m.capacity_B == 80e9);
    CHECK(m.total_B() == m.weights_B + m.gradients_B + m.optimizer_B + m.activations_B + m.buffers_B);
    CHECK_FALSE(m.fits());  // 16 x 7.5B = 120 GB of model states on an 80 GB device
  }
  SECTION("one replica all-reduces nothing") {
    sc.parallelism.dp = 1;
    CHECK(estimate_memory(sc).buffers_B == 0);
  }
  SECTION("a model smaller than a bucket") {
    sc.workload.layers = 1;
    sc.workload.hidden = 64;
    sc.workload.heads = 4;
    sc.workload.ffn_hidden = 256;
    sc.workload.vocab_size = 100;
    sc.workload.seq_length = 32;
    const auto m = estimate_memory(sc);
    REQUIRE(m.gradients_B < sc.training.bucket_size_B);
    CHECK(m.buffers_B == m.gradients_B);
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
