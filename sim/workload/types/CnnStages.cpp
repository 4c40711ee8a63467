// The compact form of ResNet and VGG networks expanded into layers, as torchvision builds them
// (module names included): docs/workloads.md, "Workload type `cnn`".
#include "workload/types/CnnStages.hpp"

#include <fmt/format.h>

#include "workload/types/CnnNetwork.hpp"

namespace clearfog::workload {

namespace {

class StageExpander {
public:
  explicit StageExpander(int image_channels) : channels_(image_channels) {}

  std::vector<CnnLayer> run(const CnnStages& s) {
    if (s.stem == StemKind::Resnet) stem(s.stem_channels);
    for (std::size_t i = 0; i < s.stages.size(); ++i) {
      const CnnStage& stage = s.stages[i];
      for (int j = 0; j < stage.count; ++j) {
        const std::string prefix = fmt::format("layer{}.{}", i + 1, j);
        const int stride = j == 0 ? stage.stride : 1;
        switch (stage.block) {
          case StageBlock::Bottleneck: bottleneck(prefix, stage.channels, stride, s.stride_in); break;
          case StageBlock::Basic: basic(prefix, stage.channels, stride); break;
          case StageBlock::Vgg:
          case StageBlock::VggBn:
            vgg_conv(fmt::format("stage{}.conv{}", i + 1, j + 1), stage.channels, stage.block == StageBlock::VggBn);
            break;
        }
      }
      if (!residual(stage.block))
        add({.kind = CnnLayerKind::MaxPool, .name = fmt::format("stage{}.pool", i + 1), .kernel = 2, .stride = 2});
    }
    head(s);
    return std::move(layers_);
  }

private:
  void add(CnnLayer layer) { layers_.push_back(std::move(layer)); }

  CnnLayer conv(std::string name, int out, int kernel, int stride, bool bias = false) {
    return {.kind = CnnLayerKind::Conv, .name = std::move(name), .out = out, .kernel = kernel, .stride = stride,
            .padding = (kernel - 1) / 2, .bias = bias};
  }
  static CnnLayer simple(CnnLayerKind kind, std::string name) { return {.kind = kind, .name = std::move(name)}; }

  void stem(int channels) {
    CnnLayer c = conv("conv1", channels, 7, 2);
    c.block = "stem";
    add(c);
    add(simple(CnnLayerKind::BatchNorm, "bn1"));
    add(simple(CnnLayerKind::Relu, "relu"));
    add({.kind = CnnLayerKind::MaxPool, .name = "maxpool", .kernel = 3, .stride = 2, .padding = 1});
    channels_ = channels;
  }

  /// torchvision's Bottleneck: 1x1 (width), 3x3 (width), 1x1 (4 x width), a projection shortcut
  /// where the shape changes, add, ReLU.
  /// The name of the tensor a block starts from: the last layer's output, or the image.
  std::string current() const { return layers_.empty() ? std::string(kImageName) : layers_.back().name; }

  void bottleneck(const std::string& p, int width, int stride, StrideIn stride_in) {
    const std::string in = current();
    const int out = 4 * width;
    CnnLayer c1 = conv(p + ".conv1", width, 1, stride_in == StrideIn::Conv1x1 ? stride : 1);
    c1.block = p;
    add(c1);
    add(simple(CnnLayerKind::BatchNorm, p + ".bn1"));
    add(simple(CnnLayerKind::Relu, p + ".relu1"));
    add(conv(p + ".conv2", width, 3, stride_in == StrideIn::Conv3x3 ? stride : 1));
    add(simple(CnnLayerKind::BatchNorm, p + ".bn2"));
    add(simple(CnnLayerKind::Relu, p + ".relu2"));
    add(conv(p + ".conv3", out, 1, 1));
    add(simple(CnnLayerKind::BatchNorm, p + ".bn3"));
    close_residual(p, in, out, stride);
  }

  /// torchvision's BasicBlock: two 3x3 convolutions (the first strided), shortcut, add, ReLU.
  void basic(const std::string& p, int width, int stride) {
    const std::string in = current();
    CnnLayer c1 = conv(p + ".conv1", width, 3, stride);
    c1.block = p;
    add(c1);
    add(simple(CnnLayerKind::BatchNorm, p + ".bn1"));
    add(simple(CnnLayerKind::Relu, p + ".relu1"));
    add(conv(p + ".conv2", width, 3, 1));
    add(simple(CnnLayerKind::BatchNorm, p + ".bn2"));
    close_residual(p, in, width, stride);
  }

  void close_residual(const std::string& p, const std::string& in, int out, int stride) {
    const std::string main = layers_.back().name;
    std::string shortcut = in;
    if (stride != 1 || out != channels_) {
      CnnLayer d = conv(p + ".downsample.0", out, 1, stride);
      d.input = in;  // a branch from the block's input
      add(d);
      add(simple(CnnLayerKind::BatchNorm, p + ".downsample.1"));
      shortcut = p + ".downsample.1";
    }
    CnnLayer sum = simple(CnnLayerKind::Add, p + ".add");
    sum.input = main;
    sum.shortcut = shortcut;
    add(sum);
    add(simple(CnnLayerKind::Relu, p + ".relu"));
    channels_ = out;
  }

  void vgg_conv(const std::string& name, int out, bool batch_norm) {
    CnnLayer c = conv(name, out, 3, 1, !batch_norm);  // torchvision's VGG convolutions have biases unless followed by BN
    c.block = name;
    add(c);
    if (batch_norm) add(simple(CnnLayerKind::BatchNorm, name + ".bn"));
    add(simple(CnnLayerKind::Relu, name + ".relu"));
    channels_ = out;
  }

  void head(const CnnStages& s) {
    CnnLayer pool = simple(s.head_pool == HeadPool::GlobalAvg ? CnnLayerKind::GlobalAvgPool : CnnLayerKind::Flatten,
                           s.head_pool == HeadPool::GlobalAvg ? "avgpool" : "flatten");
    pool.block = "head";
    add(pool);
    for (std::size_t i = 0; i < s.head_fc.size(); ++i) {
      const std::string name = fmt::format("head.fc{}", i + 1);
      add({.kind = CnnLayerKind::Fc, .name = name, .block = i == 0 ? "" : name, .out = s.head_fc[i], .bias = true});
      add(simple(CnnLayerKind::Relu, name + ".relu"));
      if (s.head_dropout) add(simple(CnnLayerKind::Dropout, name + ".dropout"));
    }
    add({.kind = CnnLayerKind::Fc, .name = "fc", .block = s.head_fc.empty() ? "" : "head.fc", .out = s.classes,
         .bias = true});
    add(simple(CnnLayerKind::Loss, "loss"));
  }

  int channels_;
  std::vector<CnnLayer> layers_;
};

}  // namespace

std::vector<CnnLayer> expand_stages(const CnnStages& stages, int image_channels) {
  return StageExpander(image_channels).run(stages);
}

}  // namespace clearfog::workload
