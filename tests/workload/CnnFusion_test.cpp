// Batch norm fused with its ReLU (and the residual add between them), as cuDNN's NHWC batch norm
// with an activation runs it for MXNet: which chains fuse, and the bytes each fused pass moves
// against the unfused kernels' (docs/workloads.md, "Kernels"): forward 3ne + n/8 for batch norm +
// ReLU (5ne unfused), 4ne + n/8 with the add (8ne); backward 5ne + 2n/8 (8ne), 6ne + 2n/8 with the
// add's shortcut gradient (8ne); n elements of e bytes, a bitmask bit per element.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support/CnnModel.hpp"
#include "workload/types/CnnFusion.hpp"
#include "workload/types/CnnLayerKernels.hpp"
#include "workload/types/CnnType.hpp"

using namespace clearfog;
using workload::CnnLayerKind;
using workload::CnnSpec;
using test::block;
using test::has_kernel;
using test::kernel;

namespace {

workload::ModelDescription fused(const config::WorkloadSpec& w, int b, DType dtype = DType::fp16) {
  config::KernelFusions fusions;
  fusions.batchnorm_relu = true;
  return workload::workload_type("cnn").describe(
      w, workload::DescribeOptions{b, dtype, 1, false, config::Attention::Unfused, 1, {}, fusions, 1});
}

/// Bytes of every memory-bound kernel of a block's pass.
double memory_bytes(const workload::Block& b, bool backward) {
  double bytes = 0;
  for (const auto& k : (backward ? b.backward : b.forward).front().kernels)
    if (k.kind == kernels::KernelKind::MemoryBound) bytes += k.bytes;
  return bytes;
}

}  // namespace

TEST_CASE("workload::CnnFusion: a batch norm fuses with the ReLU that alone reads it, or with an add and a ReLU",
          "[workload][cnn]") {
  auto s = test::residual_unit_spec();
  {
    const auto chains = workload::batchnorm_relu_chains(s.layers, workload::analyze_network(s.layers, s.image));
    REQUIRE(chains.size() == 2);
    CHECK((chains[0].batchnorm == 1 && !chains[0].add && chains[0].relu == 2));
    CHECK((chains[1].batchnorm == 4 && chains[1].add == 5u && chains[1].relu == 6));
  }
  // b1's output read by a second layer: no fusion for b1 (the unfused output is needed).
  s.layers[5].shortcut = "b1";
  {
    const auto chains = workload::batchnorm_relu_chains(s.layers, workload::analyze_network(s.layers, s.image));
    REQUIRE(chains.size() == 1);
    CHECK(chains[0].batchnorm == 4);
  }
  // A batch norm that is the add's shortcut, not its input, does not take the add (a projection's).
  s.layers = {
      {.kind = CnnLayerKind::Conv, .name = "c1", .block = "a", .out = 4, .kernel = 3, .padding = 1},
      {.kind = CnnLayerKind::BatchNorm, .name = "b1"},
      {.kind = CnnLayerKind::Relu, .name = "r1"},
      {.kind = CnnLayerKind::Conv, .name = "c2", .block = "b", .out = 4, .kernel = 3, .padding = 1},
      {.kind = CnnLayerKind::Relu, .name = "rx"},
      {.kind = CnnLayerKind::Conv, .name = "proj", .input = "r1", .out = 4, .kernel = 1},
      {.kind = CnnLayerKind::BatchNorm, .name = "b3"},
      {.kind = CnnLayerKind::Add, .name = "s", .input = "rx", .shortcut = "b3"},
      {.kind = CnnLayerKind::Relu, .name = "r2"},
      {.kind = CnnLayerKind::GlobalAvgPool, .name = "p", .block = "head"},
      {.kind = CnnLayerKind::Fc, .name = "f", .out = 10, .bias = true},
      {.kind = CnnLayerKind::Loss, .name = "loss"},
  };
  {
    const auto net = workload::analyze_network(s.layers, s.image);
    REQUIRE(net.ok());
    const auto chains = workload::batchnorm_relu_chains(s.layers, net);
    REQUIRE(chains.size() == 1);
    CHECK(chains[0].batchnorm == 1);
  }
}

TEST_CASE("workload::CnnFusion: fused passes move the bytes of cuDNN's fused kernels", "[workload][cnn]") {
  const int b = 2;
  const auto w = workload::make_cnn_workload("unit", test::residual_unit_spec());
  for (const DType dtype : {DType::fp16, DType::bf16}) {
    const double e = dtype_bytes(dtype), n = b * 4.0 * 8 * 8, mask = n / 8;
    const auto plain = test::describe(w, b, dtype), joined = fused(w, b, dtype);
    INFO(dtype_name(dtype));
    const auto& a = block(joined, "a");
    const auto& u = block(joined, "b");
    // b1 + r1: statistics, then normalize + ReLU writing the bitmask; r1 runs nothing.
    CHECK(kernel(a, "b1.stats").bytes == n * e);
    CHECK(kernel(a, "b1.relu").bytes == 2 * n * e + mask);
    CHECK_FALSE(has_kernel(a, "r1", false));
    CHECK_FALSE(has_kernel(a, "r1.bwd", true));
    CHECK(kernel(a, "b1.relu.reduce", true).bytes == 2 * n * e + mask);
    CHECK(kernel(a, "b1.relu.dgrad", true).bytes == 3 * n * e + mask);
    // b2 + s + r2: the add's shortcut read forward, its gradient written backward.
    CHECK(kernel(u, "b2.add.relu").bytes == 3 * n * e + mask);
    CHECK_FALSE(has_kernel(u, "s", false));
    CHECK(kernel(u, "b2.add.relu.dgrad", true).bytes == 4 * n * e + mask);
    // Against the unfused passes: forward 2ne - n/8 saved per batch norm + ReLU and 4ne - n/8 per
    // batch norm + add + ReLU; backward 3ne - 2n/8 and 2ne - 2n/8.
    CHECK(memory_bytes(block(plain, "a"), false) - memory_bytes(a, false) == Approx(2 * n * e - mask));
    CHECK(memory_bytes(block(plain, "b"), false) - memory_bytes(u, false) == Approx(4 * n * e - mask));
    CHECK(memory_bytes(block(plain, "a"), true) - memory_bytes(a, true) == Approx(3 * n * e - 2 * mask));
    CHECK(memory_bytes(block(plain, "b"), true) - memory_bytes(u, true) == Approx(2 * n * e - 2 * mask));
    // The GEMMs and the parameters are the same.
    CHECK(test::pass_model_flops(plain, false) == test::pass_model_flops(joined, false));
    CHECK(joined.blocks[0].params.size() == plain.blocks[0].params.size());
    // Kept: the bitmasks beside the statistics; r1's and r2's outputs are still kept by their
    // readers (c2, the pool), so the block totals move by the masks only.
    const auto none = workload::policy_index(config::Recompute::None);
    double kept_plain = 0, kept_fused = 0;
    for (const auto& blk : plain.blocks) kept_plain += blk.saved_activation_B[none];
    for (const auto& blk : joined.blocks) kept_fused += blk.saved_activation_B[none];
    CHECK(kept_fused - kept_plain == Approx(2 * mask));
  }
}

TEST_CASE("workload::CnnFusion: what does not fuse", "[workload][cnn]") {
  const auto chains_of = [](const CnnSpec& s) {
    const auto net = workload::analyze_network(s.layers, s.image);
    REQUIRE(net.ok());
    return workload::batchnorm_relu_chains(s.layers, net);
  };
  SECTION("an add reading the batch norm as input and shortcut reads it twice") {
    auto s = test::residual_unit_spec();
    s.layers[5].shortcut = "b2";
    const auto chains = chains_of(s);
    REQUIRE(chains.size() == 1);
    CHECK(chains[0].batchnorm == 1);
  }
  SECTION("a chain across a block boundary") {
    auto s = test::residual_unit_spec();
    s.layers[2].block = "a2";  // r1 starts a block of its own: b1 ends block a
    const auto chains = chains_of(s);
    REQUIRE(chains.size() == 1);
    CHECK(chains[0].batchnorm == 4);
  }
  SECTION("32-bit or channels-first tensors: the profile's fusion leaves the chains apart") {
    const auto w = workload::make_cnn_workload("unit", test::residual_unit_spec());
    CHECK_FALSE(has_kernel(block(fused(w, 2, DType::tf32), "a"), "b1.relu", false));
    CHECK(has_kernel(block(fused(w, 2, DType::tf32), "a"), "r1", false));
    auto first = test::residual_unit_spec();
    first.memory_format = workload::MemoryFormat::ChannelsFirst;
    CHECK_FALSE(has_kernel(block(fused(workload::make_cnn_workload("unit", first), 2, DType::fp16), "a"), "b1.relu",
                           false));
    CHECK(workload::batchnorm_relu_fusion_applies(DType::bf16, workload::MemoryFormat::ChannelsLast));
    CHECK_FALSE(workload::batchnorm_relu_fusion_applies(DType::fp32, workload::MemoryFormat::ChannelsLast));
  }
}

TEST_CASE("workload::CnnFusion: the data pass writes only the gradients that are needed", "[workload][cnn]") {
  // The unit's first batch norm reads the image through c1 (no data gradient of the image, but c1's
  // weights need b1's): dx is needed. Without any layer with parameters before it, neither is.
  const int b = 2;
  const double e = 2, n = b * 4.0 * 8 * 8, mask = n / 8;
  workload::LayerGraph g;
  g.input = 0;
  g.in = g.out = {4, 8, 8};
  const auto dgrad = [&](bool input_grad, bool add, bool shortcut_grad) {
    const auto p = workload::fused_batchnorm_relu(g, "bn", b, DType::fp16, input_grad, add, shortcut_grad);
    for (const auto& k : p.backward)
      if (k.name.ends_with(".dgrad")) return k.bytes;
    return 0.0;
  };
  CHECK(dgrad(true, false, false) == 3 * n * e + mask);   // dz, x in; dx out
  CHECK(dgrad(false, false, false) == 0);                  // no data pass
  CHECK(dgrad(true, true, true) == 4 * n * e + mask);     // and the shortcut's gradient out
  CHECK(dgrad(true, true, false) == 3 * n * e + mask);    // a shortcut without gradient (the image)
  CHECK(dgrad(false, true, true) == 2 * n * e + mask);    // dz in, dz·mask out
}

TEST_CASE("workload::CnnFusion: a fused chain with a projection runs after the shortcut's layers", "[workload][cnn]") {
  // layer1.0 of ResNet-50: bn3, downsample.0, downsample.1, add, relu. The fused kernel reads the
  // projection's output, so it runs after it forward and before it backward.
  const auto d = fused(test::shipped("resnet-50.yaml"), 8);
  const auto& unit = block(d, "layer1.0");
  const auto position = [&](const std::string& name, bool backward) {
    const auto& ks = (backward ? unit.backward : unit.forward).front().kernels;
    for (std::size_t i = 0; i < ks.size(); ++i)
      if (ks[i].name == name) return static_cast<long long>(i);
    FAIL("no kernel " << name);
    return -1LL;
  };
  CHECK(position("bn3.add.relu", false) > position("downsample.1", false));
  CHECK(position("bn3.add.relu.dgrad", true) < position("downsample.1.reduce", true));
}

TEST_CASE("workload::CnnFusion: ResNet-50 fuses 49 of its 53 batch norms, 16 with the residual add",
          "[workload][cnn]") {
  const auto w = test::shipped("resnet-50.yaml");
  const auto& spec = w.as<CnnSpec>();
  const auto chains = workload::batchnorm_relu_chains(spec.layers, workload::analyze_network(spec.layers, spec.image));
  // 1 in the stem, 3 per bottleneck (16 of them): the third with the add; the four projections'
  // batch norms feed the add as its shortcut and stay unfused.
  std::size_t with_add = 0;
  for (const auto& c : chains) with_add += c.add ? 1 : 0;
  CHECK(chains.size() == 1 + 3 * 16);
  CHECK(with_add == 16);
}
