#pragma once
// The parameters of a convolutional network (type: cnn): the image, and the network as a list of
// layers — written out in the workload file (`network:`) or generated from ResNet/VGG stages
// (`stages:`, CnnNetwork.hpp). docs/workloads.md, "Workload type `cnn`".
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "config/WorkloadSpec.hpp"

namespace clearfog::workload {

enum class CnnLayerKind { Conv, BatchNorm, Relu, MaxPool, AvgPool, GlobalAvgPool, Add, Fc, Flatten, Dropout, Loss };
inline constexpr std::array<CnnLayerKind, 11> kAllCnnLayerKinds = {
    CnnLayerKind::Conv,    CnnLayerKind::BatchNorm,     CnnLayerKind::Relu, CnnLayerKind::MaxPool,
    CnnLayerKind::AvgPool, CnnLayerKind::GlobalAvgPool, CnnLayerKind::Add,  CnnLayerKind::Fc,
    CnnLayerKind::Flatten, CnnLayerKind::Dropout,       CnnLayerKind::Loss};
/// The spelling of `type:` in a `network:` entry.
constexpr std::string_view cnn_layer_name(CnnLayerKind k) {
  switch (k) {
    case CnnLayerKind::Conv: return "conv";
    case CnnLayerKind::BatchNorm: return "bn";
    case CnnLayerKind::Relu: return "relu";
    case CnnLayerKind::MaxPool: return "maxpool";
    case CnnLayerKind::AvgPool: return "avgpool";
    case CnnLayerKind::GlobalAvgPool: return "global_avgpool";
    case CnnLayerKind::Add: return "add";
    case CnnLayerKind::Fc: return "fc";
    case CnnLayerKind::Flatten: return "flatten";
    case CnnLayerKind::Dropout: return "dropout";
    case CnnLayerKind::Loss: return "loss";
  }
  return "?";
}
constexpr bool is_pooling(CnnLayerKind k) { return k == CnnLayerKind::MaxPool || k == CnnLayerKind::AvgPool; }

/// One layer as PyTorch runs it; sizes per image, channels-last.
struct CnnLayer {
  CnnLayerKind kind = CnnLayerKind::Conv;
  std::string name{};      // unique in the network
  std::string block{};     // non-empty: this layer starts a block (a pipeline unit) of this name
  std::string input{};     // the earlier layer whose output this one takes; empty: the previous layer's
  std::string shortcut{};  // add: the earlier layer whose output is added to the input
  int out = 0;           // conv: output channels; fc: output features
  int kernel = 0;        // conv and pooling: square window
  int stride = 1;
  int padding = 0;
  int groups = 1;        // conv: channel groups (groups = channels: depthwise)
  int dilation = 1;      // conv
  bool bias = false;     // conv and fc
};

/// How activations are laid out in memory. cuDNN's tensor-core convolutions compute in NHWC;
/// given NCHW tensors (PyTorch's default, `channels_first`) each convolution call transposes its
/// operands to NHWC and its result back (cuDNN Developer Guide, "Tensor Transformations").
enum class MemoryFormat { ChannelsLast, ChannelsFirst };
inline constexpr std::array<MemoryFormat, 2> kAllMemoryFormats = {MemoryFormat::ChannelsLast,
                                                                   MemoryFormat::ChannelsFirst};
constexpr std::string_view memory_format_name(MemoryFormat f) {
  return f == MemoryFormat::ChannelsLast ? "channels_last" : "channels_first";
}

struct ImageShape {
  int height = 0, width = 0, channels = 3;
};

// ---- The compact form (`stages:`) ---------------------------------------------------------------

/// A stage's repeated block: ResNet's bottleneck (1x1, 3x3, 1x1 with 4x expansion) or basic block
/// (two 3x3), He et al. 2016, Table 1; VGG's 3x3 convolutions with ReLU, without or with batch
/// norm (Simonyan & Zisserman 2015, Table 1), closed by a 2x2 max pool.
enum class StageBlock { Bottleneck, Basic, Vgg, VggBn };
inline constexpr std::array<StageBlock, 4> kAllStageBlocks = {StageBlock::Bottleneck, StageBlock::Basic,
                                                              StageBlock::Vgg, StageBlock::VggBn};
constexpr std::string_view stage_block_name(StageBlock b) {
  switch (b) {
    case StageBlock::Bottleneck: return "bottleneck";
    case StageBlock::Basic: return "basic";
    case StageBlock::Vgg: return "vgg";
    case StageBlock::VggBn: return "vgg_bn";
  }
  return "?";
}
constexpr bool residual(StageBlock b) { return b == StageBlock::Bottleneck || b == StageBlock::Basic; }

/// ResNet's stem (7x7/2 convolution, batch norm, ReLU, 3x3/2 max pool) or none (VGG).
enum class StemKind { Resnet, None };
inline constexpr std::array<StemKind, 2> kAllStemKinds = {StemKind::Resnet, StemKind::None};
constexpr std::string_view stem_name(StemKind s) { return s == StemKind::Resnet ? "resnet" : "none"; }

/// Where a downsampling bottleneck strides: in its 3x3 convolution (ResNet v1.5, torchvision,
/// NVIDIA DeepLearningExamples) or in its first 1x1 (the original v1 of He et al.).
enum class StrideIn { Conv3x3, Conv1x1 };
inline constexpr std::array<StrideIn, 2> kAllStrideIns = {StrideIn::Conv3x3, StrideIn::Conv1x1};
constexpr std::string_view stride_in_name(StrideIn s) { return s == StrideIn::Conv3x3 ? "3x3" : "1x1"; }

/// How the head turns the last feature map into features: global average pool (ResNet) or
/// flatten (VGG).
enum class HeadPool { GlobalAvg, Flatten };
inline constexpr std::array<HeadPool, 2> kAllHeadPools = {HeadPool::GlobalAvg, HeadPool::Flatten};
constexpr std::string_view head_pool_name(HeadPool p) { return p == HeadPool::GlobalAvg ? "global_avg" : "flatten"; }

struct CnnStage {
  StageBlock block = StageBlock::Bottleneck;
  int count = 1;     // blocks (residual) or convolutions (VGG)
  int channels = 0;  // width: a bottleneck's 3x3 channels (outputs 4x), a basic block's or VGG conv's outputs
  int stride = 1;    // residual: the first block's stride
};

struct CnnStages {
  StemKind stem = StemKind::Resnet;
  int stem_channels = 64;
  std::vector<CnnStage> stages;
  StrideIn stride_in = StrideIn::Conv3x3;
  HeadPool head_pool = HeadPool::GlobalAvg;
  std::vector<int> head_fc;  // hidden fully connected layers before the classifier, each with ReLU
  bool head_dropout = false; // dropout after each hidden fully connected layer (VGG)
  int classes = 0;
};

struct CnnSpec : config::WorkloadParams {
  ImageShape image;
  int classes = 0;                // features the loss takes (the last fully connected layer's)
  std::vector<CnnLayer> layers;   // the whole network, in order, ending with the loss
  MemoryFormat memory_format = MemoryFormat::ChannelsLast;
  std::string form;               // for the summary: "network of 12 layers", "stages 3-4-6-3 bottleneck"
};

}  // namespace clearfog::workload
