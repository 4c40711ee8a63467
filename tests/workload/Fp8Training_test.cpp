// FP8 training as Transformer Engine runs it (docs/compute-model.md, "FP8 training"): only the
// weight GEMMs run in fp8, each after a cast-transpose of its input (2 + 1 + 1 bytes per element,
// 2 where a norm writes the fp8 copies itself); everything else stays in bf16.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "support/SmallTransformer.hpp"
#include "workload/OptimizerStep.hpp"
#include "workload/TransformerModel.hpp"

using namespace clearfog;
using clearfog::kernels::Kernel;
using clearfog::kernels::KernelKind;
using clearfog::workload::TransformerModel;
using clearfog::test::small_gpt_shape;

namespace {

std::vector<Kernel> layer(const TransformerModel& m) {
  auto k = m.layer_forward(0);
  const auto b = m.layer_backward(0);
  k.insert(k.end(), b.begin(), b.end());
  return k;
}

}  // namespace

TEST_CASE("workload::TransformerModel: fp8 training runs only the weight GEMMs in fp8, after a cast of their inputs",
          "[workload]") {
  const auto w = small_gpt_shape();
  const int b = 2;
  const TransformerModel fp8(w, b, DType::fp8);
  const TransformerModel bf16(w, b, DType::bf16);
  const double tokens = static_cast<double>(b) * w.seq_length, h = w.hidden, f = w.ffn_hidden;
  const auto k8 = layer(fp8);
  const std::set<std::string> weight_gemms = {"qkv", "proj", "fc1", "fc2"};

  SECTION("the weight GEMMs in fp8, every other kernel as in bf16 training") {
    for (const auto& k : k8) {
      if (k.name.find(".cast") != std::string::npos) continue;
      const std::string base = k.name.substr(0, k.name.find('.'));
      INFO(k.name);
      CHECK(k.dtype == (k.kind == KernelKind::Gemm && weight_gemms.count(base) ? DType::fp8 : DType::bf16));
    }
    // Apart from the casts, the kernels are bf16 training's, with the same bytes where not a GEMM.
    const auto k16 = layer(bf16);
    for (const auto& k : k16) {
      const Kernel& same = test::find_kernel(k8, k.name);
      if (k.kind != KernelKind::Gemm) CHECK(same.bytes == k.bytes);
      CHECK(same.matmul_flops() == k.matmul_flops());  // model FLOPs do not change with the dtype
    }
  }
  SECTION("cast bytes: 4 per element of X (2 after a norm) forward, 4 per element of dY backward") {
    CHECK(test::find_kernel(k8, "qkv.cast").bytes == 2 * tokens * h);   // ln1 writes the fp8 copies
    CHECK(test::find_kernel(k8, "fc1.cast").bytes == 2 * tokens * h);   // ln2 likewise
    CHECK(test::find_kernel(k8, "proj.cast").bytes == 4 * tokens * h);  // the attention output, read and written twice
    CHECK(test::find_kernel(k8, "fc2.cast").bytes == 4 * tokens * f);
    CHECK(test::find_kernel(k8, "fc2.cast.bwd").bytes == 4 * tokens * h);
    CHECK(test::find_kernel(k8, "fc1.cast.bwd").bytes == 4 * tokens * f);
    CHECK(test::find_kernel(k8, "proj.cast.bwd").bytes == 4 * tokens * h);
    CHECK(test::find_kernel(k8, "qkv.cast.bwd").bytes == 4 * tokens * 3 * h);
    CHECK(test::find_kernel(k8, "fc2.cast").kind == KernelKind::MemoryBound);
    // Each cast comes right before the GEMM that reads it.
    const auto fwd = fp8.layer_forward(0);
    for (const std::string name : {"qkv", "proj", "fc1", "fc2"}) {
      const auto it = std::find_if(fwd.begin(), fwd.end(), [&](const Kernel& k) { return k.name == name + ".cast"; });
      REQUIRE(it + 1 != fwd.end());
      CHECK((it + 1)->name == name);
    }
  }
  SECTION("saved activations: the weight GEMMs' inputs as their fp8 copies, 1 byte instead of 2") {
    // qkv's and fc1's normed inputs (2 b s h), the projection's input (b s h) and fc2's (b s f); the
    // fused attention backward reads the attention output itself, so it stays in bf16 beside the
    // projection's fp8 copy.
    const auto none = config::Recompute::None;
    CHECK(bf16.layer_activation_bytes(0, none) - fp8.layer_activation_bytes(0, none) ==
          Approx(tokens * (3 * h + f)));
    const TransformerModel fused8(w, b, DType::fp8, {}, config::Attention::Fused);
    const TransformerModel fused16(w, b, DType::bf16, {}, config::Attention::Fused);
    CHECK(fused16.layer_activation_bytes(0, none) - fused8.layer_activation_bytes(0, none) ==
          Approx(tokens * (h + f)));
    CHECK(fp8.layer_activation_bytes(0, config::Recompute::Full) == bf16.layer_activation_bytes(0, config::Recompute::Full));
  }
  SECTION("bf16 training has no casts; the optimizer re-casts the weights once per step") {
    for (const auto& k : layer(bf16)) CHECK(k.name.find(".cast") == std::string::npos);
    const double psi = 1e9;
    CHECK(workload::optimizer_step(psi, true, DType::fp8, DType::fp32).bytes -
              workload::optimizer_step(psi, true, DType::bf16, DType::fp32).bytes ==
          Approx(4 * psi));
  }
}
