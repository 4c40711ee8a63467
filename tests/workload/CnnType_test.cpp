// The cnn workload type: ResNet-50 v1.5's parameters and multiply-adds from its architecture
// (He et al. 2016, Table 1, with v1.5's stride in the 3x3 convolution), VGG-16's from Simonyan &
// Zisserman 2015, Table 1; kernel shapes and bytes from the closed forms of docs/workloads.md;
// kept activations of a small network counted tensor by tensor; the stages form against the same
// network written out; block cuts where one tensor is live.
#include <catch2/catch.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"
#include "workload/WorkloadType.hpp"
#include "workload/types/CnnType.hpp"
#include "support/CnnModel.hpp"

using namespace clearfog;
using workload::Block;
using workload::CnnLayer;
using workload::CnnLayerKind;
using workload::CnnSpec;
using workload::DescribeOptions;
using workload::ModelDescription;
using kernels::Kernel;
using test::block;
using test::describe;
using test::has_kernel;
using test::kernel;
using test::pass_model_flops;
using test::shipped;

namespace {

struct Stage {
  int count, width, stride;
};
constexpr std::array<Stage, 4> kResNet50 = {{{3, 64, 1}, {4, 128, 2}, {6, 256, 2}, {3, 512, 2}}};

/// ResNet-50 v1.5 parameters: stem conv and BN, per bottleneck 1x1 (cin -> w), 3x3 (w -> w), 1x1
/// (w -> 4w) with a BN (2 per channel) each, the first block of a stage a 1x1 projection and BN,
/// then fc 2048 -> 1000 with bias.
double resnet50_parameters() {
  double p = 64.0 * 3 * 7 * 7 + 2 * 64;
  double cin = 64;
  for (const Stage& s : kResNet50)
    for (int j = 0; j < s.count; ++j) {
      const double w = s.width, out = 4.0 * w;
      p += cin * w + 9 * w * w + w * out + 2 * (w + w + out);
      if (j == 0) p += cin * out + 2 * out;
      cin = out;
    }
  return p + 2048.0 * 1000 + 1000;
}

/// Forward multiply-adds per 224x224 image: each convolution's output pixels x output channels x
/// input channels x kernel area (v1.5: the 1x1 before the stride runs at the input size), and fc.
double resnet50_macs() {
  double macs = 112.0 * 112 * 64 * 3 * 49;
  double hw = 56, cin = 64;
  for (const Stage& s : kResNet50)
    for (int j = 0; j < s.count; ++j) {
      const double w = s.width, out = 4.0 * w, o = hw / (j == 0 ? s.stride : 1);
      macs += hw * hw * w * cin + o * o * 9 * w * w + o * o * out * w + (j == 0 ? o * o * out * cin : 0.0);
      hw = o;
      cin = out;
    }
  return macs + 2048.0 * 1000;
}


std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / fmt::format("clearfog-cnn-{}-{}", ::getpid(), name);
  std::ofstream(path) << text;
  return path.string();
}

/// ResNet-50 v1.5 written out layer by layer, as torchvision names its modules.
std::string resnet50_network_yaml() {
  std::string y = "kind: workload\nname: ResNet-50 written out\nsource: test\ntype: cnn\n"
                  "image: {height: 224, width: 224}\nclasses: 1000\nnetwork:\n"
                  "  - {name: conv1, type: conv, out: 64, kernel: 7, stride: 2, padding: 3, bias: false, block: stem}\n"
                  "  - {name: bn1, type: bn}\n  - {name: relu, type: relu}\n"
                  "  - {name: maxpool, type: maxpool, kernel: 3, stride: 2, padding: 1}\n";
  std::string in = "maxpool";
  int cin = 64;
  for (std::size_t i = 0; i < kResNet50.size(); ++i) {
    for (int j = 0; j < kResNet50[i].count; ++j) {
      const std::string p = fmt::format("layer{}.{}", i + 1, j);
      const int w = kResNet50[i].width, stride = j == 0 ? kResNet50[i].stride : 1;
      y += fmt::format("  - {{name: {0}.conv1, type: conv, out: {1}, kernel: 1, bias: false, block: {0}}}\n", p, w);
      y += fmt::format("  - {{name: {0}.bn1, type: bn}}\n  - {{name: {0}.relu1, type: relu}}\n", p);
      y += fmt::format("  - {{name: {0}.conv2, type: conv, out: {1}, kernel: 3, stride: {2}, bias: false}}\n", p, w,
                       stride);
      y += fmt::format("  - {{name: {0}.bn2, type: bn}}\n  - {{name: {0}.relu2, type: relu}}\n", p);
      y += fmt::format("  - {{name: {0}.conv3, type: conv, out: {1}, kernel: 1, bias: false}}\n", p, 4 * w);
      y += fmt::format("  - {{name: {0}.bn3, type: bn}}\n", p);
      std::string shortcut = in;
      if (j == 0) {
        y += fmt::format("  - {{name: {0}.downsample.0, type: conv, out: {1}, kernel: 1, stride: {2}, bias: false, "
                         "input: {3}}}\n  - {{name: {0}.downsample.1, type: bn}}\n",
                         p, 4 * w, stride, in);
        shortcut = p + ".downsample.1";
      }
      y += fmt::format("  - {{name: {0}.add, type: add, input: {0}.bn3, shortcut: {1}}}\n", p, shortcut);
      y += fmt::format("  - {{name: {0}.relu, type: relu}}\n", p);
      in = p + ".relu";
      cin = 4 * w;
    }
  }
  (void)cin;
  y += "  - {name: avgpool, type: global_avgpool, block: head}\n  - {name: fc, type: fc, out: 1000}\n"
       "  - {name: loss, type: loss}\n";
  return y;
}

}  // namespace

TEST_CASE("workload::Cnn: ResNet-50 v1.5 has He et al.'s parameters and multiply-adds", "[workload][cnn]") {
  const auto w = shipped("resnet-50.yaml");
  const auto d = describe(w, 1);
  // torchvision's resnet50: 25,557,032 parameters (the CSV's "25.6 M").
  CHECK(resnet50_parameters() == 25557032.0);
  CHECK(d.parameters() == resnet50_parameters());
  // 4.09 G multiply-adds per image forward (the "~4.1 GFLOP" of the reference counts multiply-adds).
  CHECK(resnet50_macs() == Approx(4.1e9).epsilon(0.01));
  CHECK(pass_model_flops(d, false) == Approx(2 * resnet50_macs()).epsilon(1e-12));
  // Backward: a data- and a weight-gradient product per layer, except the stem's data gradient.
  const double stem_macs = 112.0 * 112 * 64 * 3 * 49;
  CHECK(pass_model_flops(d, true) == Approx(2 * (2 * resnet50_macs()) - 2 * stem_macs).epsilon(1e-12));
  CHECK(d.sample_unit == "images");
  CHECK(d.tokens_per_sample == 0);
}

TEST_CASE("workload::Cnn: ResNet-101 and VGG-16 parameters and multiply-adds", "[workload][cnn]") {
  // VGG-16 (configuration D): 13 3x3 convolutions with biases, fc 25088 -> 4096 -> 4096 -> 1000.
  const std::array<std::array<int, 2>, 5> stages = {{{2, 64}, {2, 128}, {3, 256}, {3, 512}, {3, 512}}};
  double params = 0, macs = 0, cin = 3, hw = 224;
  for (const auto& [count, c] : stages) {
    for (int i = 0; i < count; ++i) {
      params += cin * c * 9 + c;
      macs += hw * hw * c * cin * 9;
      cin = c;
    }
    hw /= 2;
  }
  params += 25088.0 * 4096 + 4096 + 4096.0 * 4096 + 4096 + 4096.0 * 1000 + 1000;
  macs += 25088.0 * 4096 + 4096.0 * 4096 + 4096.0 * 1000;
  CHECK(params == 138357544.0);  // Simonyan & Zisserman, Table 2: 138 M
  const auto vgg = describe(shipped("vgg-16.yaml"), 1);
  CHECK(vgg.parameters() == params);
  CHECK(pass_model_flops(vgg, false) == Approx(2 * macs).epsilon(1e-12));
  CHECK(macs == Approx(15.5e9).epsilon(0.005));
  // ResNet-101: 23 blocks in the third stage; torchvision's resnet101 has 44,549,160 parameters.
  const auto r101 = describe(shipped("resnet-101.yaml"), 1);
  CHECK(r101.parameters() == 44549160.0);
  CHECK(r101.blocks.size() == 1 + 3 + 4 + 23 + 3 + 1);
}

TEST_CASE("workload::Cnn: convolutions are implicit GEMMs of equal FLOPs in each pass", "[workload][cnn]") {
  const int b = 32;
  const auto d = describe(shipped("resnet-50.yaml"), b);
  const double e = 2;
  SECTION("a 3x3 convolution at stride 1 (layer1.1.conv2: 64 -> 64 at 56x56)") {
    const Block& blk = block(d, "layer1.1");
    const long long pixels = b * 56LL * 56;
    const auto& fwd = kernel(blk, "conv2").gemm;
    CHECK((fwd.m == pixels && fwd.n == 64 && fwd.k == 64 * 9 && fwd.batch == 1));
    CHECK(fwd.a_footprint() == Approx(static_cast<double>(pixels) * 64));  // the image, not im2col
    const auto& dgrad = kernel(blk, "conv2.dgrad", true).gemm;
    CHECK((dgrad.m == pixels && dgrad.n == 64 && dgrad.k == 64 * 9));
    const auto& wgrad = kernel(blk, "conv2.wgrad", true);
    CHECK((wgrad.gemm.m == 64 && wgrad.gemm.n == 64 * 9 && wgrad.gemm.k == pixels && wgrad.gemm.split_k));
    CHECK(wgrad.gemm.b_footprint() == Approx(static_cast<double>(pixels) * 64));
    CHECK(kernel(blk, "conv2").flops == kernel(blk, "conv2.dgrad", true).flops);
    CHECK(kernel(blk, "conv2").flops == wgrad.flops);
    CHECK(kernel(blk, "conv2").bytes == Approx((2.0 * pixels * 64 + 64.0 * 9 * 64) * e));
  }
  SECTION("v1.5 strides in the 3x3 convolution (layer2.0.conv2: 56x56 -> 28x28)") {
    const Block& blk = block(d, "layer2.0");
    const long long out = b * 28LL * 28, in = b * 56LL * 56;
    CHECK(kernel(blk, "conv1").gemm.m == in);  // the 1x1 before it runs at 56x56
    const auto& fwd = kernel(blk, "conv2").gemm;
    CHECK((fwd.m == out && fwd.n == 128 && fwd.k == 128 * 9));
    CHECK(fwd.a_footprint() == Approx(static_cast<double>(in) * 128));
    const auto& dgrad = kernel(blk, "conv2.dgrad", true).gemm;
    CHECK(dgrad.c_footprint() == Approx(static_cast<double>(in) * 128));  // writes the whole 56x56 gradient
    const auto& down = kernel(blk, "downsample.0").gemm;
    CHECK((down.m == out && down.n == 512 && down.k == 256));
    // A 1x1 convolution at stride 2 reads only the pixels it samples.
    CHECK(down.a_footprint() == Approx(static_cast<double>(out) * 256));
  }
  SECTION("the first layer has no data gradient; the classifier is a GEMM") {
    const Block& stem = block(d, "stem");
    CHECK(has_kernel(stem, "conv1.wgrad", true));
    CHECK_FALSE(has_kernel(stem, "conv1.dgrad", true));
    const Block& head = block(d, "head");
    const auto& fc = kernel(head, "fc").gemm;
    CHECK((fc.m == b && fc.n == 1000 && fc.k == 2048));
    CHECK(kernel(head, "fc.dgrad", true).gemm.n == 2048);
    CHECK((kernel(head, "fc.wgrad", true).gemm.m == 1000 && kernel(head, "fc.wgrad", true).gemm.k == b));
  }
}

TEST_CASE("workload::Cnn: memory-bound kernels move the bytes of their passes", "[workload][cnn]") {
  const int b = 8;
  for (const DType dtype : {DType::fp16, DType::tf32}) {
    const double e = dtype_bytes(dtype);
    const auto d = describe(shipped("resnet-50.yaml"), b, dtype);
    const Block& stem = block(d, "stem");
    const double x = b * 64.0 * 112 * 112, y = b * 64.0 * 56 * 56;  // conv1's output, the max pool's
    INFO(dtype_name(dtype));
    // Batch norm: statistics read x; normalize reads x, writes y; backward: two sums read dy and x,
    // then dx from dy and x.
    CHECK(kernel(stem, "bn1.stats").bytes == x * e);
    CHECK(kernel(stem, "bn1").bytes == 2 * x * e);
    CHECK(kernel(stem, "bn1.reduce", true).bytes == 2 * x * e);
    CHECK(kernel(stem, "bn1.dgrad", true).bytes == 3 * x * e);
    CHECK(kernel(stem, "relu").bytes == 2 * x * e);
    CHECK(kernel(stem, "relu.bwd", true).bytes == 3 * x * e);
    // Max pooling writes an int64 index per output, its backward reads it.
    CHECK(kernel(stem, "maxpool").bytes == x * e + y * (e + 8));
    CHECK(kernel(stem, "maxpool.bwd", true).bytes == y * (e + 8) + x * e);
    // The max pool's output feeds conv1 and the projection of layer1.0: its two gradients are summed.
    CHECK(kernel(stem, "maxpool.grad_sum", true).bytes == 3 * y * e);
    const Block& unit = block(d, "layer1.1");
    const double z = b * 256.0 * 56 * 56;
    CHECK(kernel(unit, "add").bytes == 3 * z * e);
    // None of these counts towards model FLOPs.
    for (const auto& k : stem.forward.front().kernels)
      if (k.kind == kernels::KernelKind::MemoryBound) CHECK(k.model_flops == 0);
  }
}

TEST_CASE("workload::Cnn: kept activations counted once per tensor, and block outputs", "[workload][cnn]") {
  const CnnSpec s = test::residual_unit_spec();
  const int b = 2;
  const double e = 2, image = b * 3 * 64 * e, map = b * 4 * 64 * e, stats = 2 * 4 * 4.0;
  const auto d = describe(workload::make_cnn_workload("tiny", s), b);
  REQUIRE(d.blocks.size() == 3);
  const auto none = workload::policy_index(config::Recompute::None);
  const auto full = workload::policy_index(config::Recompute::Full);
  // a: the image (c1), c1's output and statistics (b1), r1's output (r1 and c2 keep the same tensor)
  CHECK(d.blocks[0].saved_activation_B[none] == image + map + stats + map);
  // b: c2's output and statistics (b2), r2's output (r2; the pool keeps the same tensor)
  CHECK(d.blocks[1].saved_activation_B[none] == map + stats + map);
  // head: the pooled features (fc) and the fp32 log-probabilities (loss)
  CHECK(d.blocks[2].saved_activation_B[none] == b * 4 * e + b * 10 * 4.0);
  // Full recomputation keeps each block's input.
  CHECK(d.blocks[0].saved_activation_B[full] == image);
  CHECK(d.blocks[1].saved_activation_B[full] == map);
  CHECK(d.blocks[2].saved_activation_B[full] == map);
  CHECK(d.blocks[0].output_B == map);
  CHECK(d.blocks[2].output_B == 0);
  // r1's output feeds c2 and the add: its gradients are summed in a's backward.
  CHECK(kernel(d.blocks[0], "r1.grad_sum", true).bytes == 3 * map);
  // Parameters in backward order: r1, b1, c1 -> b1's then c1's.
  std::vector<std::string> names;
  for (const auto& p : d.blocks[0].params) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"b1.bias", "b1.weight", "c1.weight"});
  for (const auto& blk : d.blocks) CHECK((blk.pipeline_unit && blk.checkpointable));
}

TEST_CASE("workload::Cnn: the stages form makes the network written out layer by layer", "[workload][cnn]") {
  const auto file = temp_file("resnet50.yaml", resnet50_network_yaml());
  const auto written = config::load_workload(file);
  std::filesystem::remove(file);
  const auto staged = shipped("resnet-50.yaml");
  const auto& a = written.as<CnnSpec>().layers;
  const auto& b = staged.as<CnnSpec>().layers;
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO(a[i].name << " / " << b[i].name);
    CHECK(a[i].name == b[i].name);
    CHECK(a[i].kind == b[i].kind);
    CHECK(a[i].block == b[i].block);
    CHECK((a[i].out == b[i].out && a[i].kernel == b[i].kernel && a[i].stride == b[i].stride));
    CHECK((a[i].padding == b[i].padding && a[i].groups == b[i].groups && a[i].bias == b[i].bias));
    // References may be implicit (the previous layer) in one and named in the other.
    if (!a[i].input.empty() && !b[i].input.empty()) CHECK(a[i].input == b[i].input);
    CHECK(a[i].shortcut == b[i].shortcut);
  }
  const auto da = describe(written, 16), db = describe(staged, 16);
  REQUIRE(da.blocks.size() == db.blocks.size());
  CHECK(da.parameters() == db.parameters());
  for (std::size_t k = 0; k < da.blocks.size(); ++k) {
    CHECK(da.blocks[k].name == db.blocks[k].name);
    CHECK(da.blocks[k].type == db.blocks[k].type);
    CHECK(workload::model_flops(da.blocks[k].backward) == workload::model_flops(db.blocks[k].backward));
    CHECK(da.blocks[k].saved_activation_B == db.blocks[k].saved_activation_B);
  }
}

TEST_CASE("workload::Cnn: blocks start where one tensor is live, never inside a residual unit", "[workload][cnn]") {
  const auto d = describe(shipped("resnet-50.yaml"), 1);
  std::vector<std::string> names;
  std::set<std::string> types;
  for (const auto& b : d.blocks) {
    names.push_back(b.name);
    types.insert(b.type);
  }
  std::vector<std::string> expected = {"stem"};
  for (std::size_t i = 0; i < kResNet50.size(); ++i)
    for (int j = 0; j < kResNet50[i].count; ++j) expected.push_back(fmt::format("layer{}.{}", i + 1, j));
  expected.push_back("head");
  CHECK(names == expected);
  // Priced once per kind: the stem, each stage's first (projecting) block and its others, the last
  // unit (its output feeds the pool alone: no gradient sum), the head.
  CHECK(types.size() == 1 + 2 * kResNet50.size() + 1 + 1);
  CHECK(block(d, "layer4.2").type == "layer4.2");
  CHECK(block(d, "layer3.4").type == "layer3.1");
  // The stem sends the max pool's 64 x 56 x 56 output; the last residual unit its 2048 x 7 x 7.
  CHECK(block(d, "stem").output_B == 64.0 * 56 * 56 * 2);
  CHECK(block(d, "layer4.2").output_B == 2048.0 * 7 * 7 * 2);

  SECTION("without block names: a block at every cuttable conv or fc") {
    auto spec = shipped("resnet-50.yaml").as<CnnSpec>();
    for (auto& l : spec.layers) l.block.clear();
    const auto auto_cut = describe(workload::make_cnn_workload("unnamed", spec), 1);
    std::vector<std::string> starts;
    for (const auto& b : auto_cut.blocks) starts.push_back(b.name);
    std::vector<std::string> convs = {"conv1"};
    for (std::size_t i = 1; i + 1 < expected.size(); ++i) convs.push_back(expected[i] + ".conv1");
    convs.push_back("fc");  // the pool joins the last residual unit: a cut before it would do as well
    CHECK(starts == convs);
  }
  SECTION("a block named inside a residual unit is refused") {
    auto spec = shipped("resnet-50.yaml").as<CnnSpec>();
    for (auto& l : spec.layers)
      if (l.name == "layer2.1.conv2") l.block = "bad";
    const auto net = workload::analyze_network(spec.layers, spec.image);
    REQUIRE(net.problems.size() == 1);
    CHECK(net.problems[0].field == "block");
    CHECK_THROWS_AS(describe(workload::make_cnn_workload("bad", spec), 1), Error);
  }
}

TEST_CASE("workload::Cnn: depthwise convolutions run as memory-bound kernels with their model FLOPs",
          "[workload][cnn]") {
  CnnSpec s;
  s.image = {16, 16, 3};
  s.layers = {
      {.kind = CnnLayerKind::Conv, .name = "stem", .out = 32, .kernel = 3, .padding = 1},
      {.kind = CnnLayerKind::Conv, .name = "dw", .out = 32, .kernel = 3, .padding = 1, .groups = 32},
      {.kind = CnnLayerKind::Conv, .name = "pw", .out = 64, .kernel = 1},
      {.kind = CnnLayerKind::GlobalAvgPool, .name = "pool"},
      {.kind = CnnLayerKind::Fc, .name = "fc", .out = 10},
      {.kind = CnnLayerKind::Loss, .name = "loss"},
  };
  const int b = 4;
  const auto d = describe(workload::make_cnn_workload("mobile", s), b);
  // Without block names a block starts at every cuttable conv or fc.
  const Block& dw = block(d, "dw");
  const Kernel& k = kernel(dw, "dw");
  CHECK(k.kind == kernels::KernelKind::MemoryBound);
  const double pixels = b * 16.0 * 16, macs = pixels * 32 * 9;  // one input channel per output
  CHECK(k.model_flops == 2 * macs);
  CHECK(k.matmul_flops() == 2 * macs);
  CHECK(k.bytes == (2 * pixels * 32 + 32.0 * 9) * 2);
  CHECK(kernel(dw, "dw.dgrad", true).kind == kernels::KernelKind::MemoryBound);
  // The pointwise convolution after it is a GEMM again.
  CHECK(kernel(block(d, "pw"), "pw").kind == kernels::KernelKind::Gemm);
}

TEST_CASE("workload::Cnn: tensor and sequence parallelism are refused", "[workload][cnn]") {
  const auto w = shipped("resnet-50.yaml");
  const auto& type = workload::workload_type("cnn");
  CHECK_THROWS_AS(type.describe(w, DescribeOptions{8, DType::fp16, 2, false, config::Attention::Unfused, 1, {}, {}, 1}), Error);
  CHECK_THROWS_AS(type.describe(w, DescribeOptions{8, DType::fp16, 1, true, config::Attention::Unfused, 1, {}, {}, 1}), Error);
  CHECK(type.shape_text(w) == "224x224x3 images, stages 3-4-6-3 bottleneck: 175 layers in 18 blocks, 1000 classes");
}

TEST_CASE("workload::Cnn: no gradient flows into layers before the first parameters", "[workload][cnn]") {
  // A pool on the image, then the first convolution: autograd computes neither the pool's
  // backward nor the convolution's data gradient (nothing before them has parameters).
  CnnSpec s;
  s.image = {16, 16, 3};
  s.layers = {
      {.kind = CnnLayerKind::AvgPool, .name = "pool", .kernel = 2, .stride = 2},
      {.kind = CnnLayerKind::Conv, .name = "conv", .out = 16, .kernel = 3, .padding = 1},
      {.kind = CnnLayerKind::Relu, .name = "relu"},
      {.kind = CnnLayerKind::Flatten, .name = "flat"},
      {.kind = CnnLayerKind::Fc, .name = "fc", .out = 10},
      {.kind = CnnLayerKind::Loss, .name = "loss"},
  };
  const auto d = describe(workload::make_cnn_workload("pool first", s), 2);
  REQUIRE(d.blocks.size() == 3);  // pool; conv, relu, flatten; fc and loss
  CHECK_FALSE(has_kernel(block(d, "pool"), "pool.bwd", true));
  const Block& conv = block(d, "conv");
  CHECK_FALSE(has_kernel(conv, "conv.dgrad", true));
  CHECK(has_kernel(conv, "conv.wgrad", true));
  CHECK(has_kernel(conv, "relu.bwd", true));
  // The flattened 16 x 8 x 8 features feed the classifier.
  CHECK(kernel(block(d, "fc"), "fc").gemm.k == 16 * 8 * 8);
  CHECK(workload::workload_type("cnn").shape_text(workload::make_cnn_workload("pool first", s)).find("6 layers") !=
        std::string::npos);
}
