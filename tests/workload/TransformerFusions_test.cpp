// The framework profile's kernel fusions in the transformer's kernel list (docs/frameworks.md,
// "Fusions"): each unfused chain adds the bytes of its intermediate tensor's extra round trip, a
// fused cross-entropy reads the logits once; the default (all fused but attention and the loss)
// is the kernel list clearfog had before profiles.
#include <catch2/catch.hpp>

#include <vector>

#include "support/TestPlatforms.hpp"
#include "workload/TransformerModel.hpp"

using namespace clearfog;
using workload::TransformerModel;

namespace {

double bytes(const std::vector<kernels::Kernel>& ks) {
  double b = 0;
  for (const auto& k : ks) b += k.bytes;
  return b;
}

constexpr int kMicroBatch = 2;
constexpr double e = 2;  // bf16

TransformerModel model(config::KernelFusions fusions) {
  return TransformerModel(test::small_gpt_spec(), kMicroBatch, DType::bf16, {}, config::Attention::Unfused, fusions);
}

}  // namespace

TEST_CASE("workload::TransformerModel: each unfused chain adds its intermediate tensor's round trip",
          "[workload][framework]") {
  const auto w = test::small_gpt_spec();
  const double N = 1.0 * kMicroBatch * w.seq_length * w.hidden;
  const double F = 1.0 * kMicroBatch * w.seq_length * w.ffn_hidden;
  const double A = 1.0 * kMicroBatch * w.heads * w.seq_length * w.seq_length;
  const auto fused = model({});
  SECTION("bias + GeLU: a bias-add kernel (2F e) forward, the bias gradient's reduction (F e) backward") {
    const auto unfused = model({.bias_gelu = false});
    CHECK(bytes(unfused.mlp_forward()) - bytes(fused.mlp_forward()) == Approx(2 * F * e));
    CHECK(bytes(unfused.mlp_backward()) - bytes(fused.mlp_backward()) == Approx(F * e));
    CHECK(unfused.mlp_forward().size() == fused.mlp_forward().size() + 1);
  }
  SECTION("softmax + mask: a mask kernel over the scores (2A e) each way") {
    const auto unfused = model({.softmax_mask = false});
    CHECK(bytes(unfused.attention_forward()) - bytes(fused.attention_forward()) == Approx(2 * A * e));
    CHECK(bytes(unfused.attention_backward()) - bytes(fused.attention_backward()) == Approx(2 * A * e));
  }
  SECTION("layernorm: a statistics pass (N e forward, 2N e backward) per norm") {
    const auto unfused = model({.layernorm = false});
    CHECK(bytes(unfused.layer_forward()) - bytes(fused.layer_forward()) == Approx(2 * N * e));  // ln1 and ln2
    CHECK(bytes(unfused.layer_backward()) - bytes(fused.layer_backward()) == Approx(2 * 2 * N * e));
    CHECK(bytes(unfused.final_norm_forward()) - bytes(fused.final_norm_forward()) == Approx(N * e));
  }
  SECTION("cross-entropy fused: the logits read once forward (e), gradient written backward (2e)") {
    const auto loss = model({.cross_entropy = true});
    const double L = 1.0 * kMicroBatch * w.seq_length * w.vocab_size;
    const auto kernel_bytes = [](const std::vector<kernels::Kernel>& ks, const char* name) {
      for (const auto& k : ks)
        if (k.name == name) return k.bytes;
      FAIL("no kernel " << name);
      return 0.0;
    };
    CHECK(kernel_bytes(loss.logits_forward(), "cross_entropy") == Approx(L * e));
    CHECK(kernel_bytes(loss.logits_backward(), "cross_entropy.bwd") == Approx(L * 2 * e));
    CHECK(kernel_bytes(fused.logits_forward(), "cross_entropy") ==
          Approx(L * workload::cross_entropy_forward_bytes_per_logit(e)));
  }
}

TEST_CASE("workload::TransformerModel: separate Q, K, V and gate/up projections keep the FLOPs and add GEMMs and "
          "gradient sums",
          "[workload][framework]") {
  // torchtitan's and Hugging Face's Llama: one nn.Linear per projection. The same FLOPs in 3 + 2
  // GEMMs instead of 1 + 1; backward, autograd adds the projections' input gradients, one kernel per
  // extra projection, each reading two N-element gradients and writing one (3 N e bytes).
  auto spec = test::small_gpt_spec();
  spec.mlp = workload::MlpKind::SwiGlu;
  const auto make = [&](bool projections) {
    config::KernelFusions f;
    f.projections = projections;
    return TransformerModel(spec, kMicroBatch, DType::bf16, {}, config::Attention::Fused, f);
  };
  const auto fused = make(true), separate = make(false);
  const auto flops = [](const std::vector<kernels::Kernel>& ks) {
    double f = 0;
    for (const auto& k : ks) f += k.flops;
    return f;
  };
  const double N = 1.0 * kMicroBatch * spec.seq_length * spec.hidden;
  CHECK(separate.layer_forward().size() == fused.layer_forward().size() + 3);        // q, k, v; gate, up
  CHECK(separate.layer_backward().size() == fused.layer_backward().size() + 3 * 2 + 3);  // dgrad + wgrad each; 2 + 1 sums
  CHECK(flops(separate.layer_forward()) == Approx(flops(fused.layer_forward())));
  CHECK(bytes(separate.layer_backward()) - bytes(fused.layer_backward()) > 3 * 3 * N * e);  // the sums, and more operand reads
  // A GeLU MLP has one up projection either way.
  spec.mlp = workload::MlpKind::Gelu;
  CHECK(make(false).mlp_forward().size() == make(true).mlp_forward().size());
}
