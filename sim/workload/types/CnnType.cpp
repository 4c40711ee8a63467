// The cnn workload type's configuration: its keys, its parameters and the rules against the
// scenario. Its checks are in CnnChecks.cpp, its blocks in CnnBlocks.cpp.
#include "workload/types/CnnType.hpp"

#include <fmt/format.h>

#include "config/CheckSupport.hpp"
#include "config/KeyTableParts.hpp"
#include "core/Errors.hpp"
#include "workload/types/CnnDocument.hpp"

namespace clearfog::workload {

using config::ConfigDocument;
using config::Constraint;
using config::KeySpec;
using config::KeyType;
using config::Presence;

namespace {

std::vector<KeySpec> network_fields() {
  using config::names;
  return {
      {.path = "type", .type = KeyType::Enum, .choices = names(kAllCnnLayerKinds, cnn_layer_name),
       .description = "conv, bn (batch norm), relu, maxpool, avgpool, global_avgpool, add (residual), fc (fully "
                      "connected), flatten, dropout, loss (softmax cross-entropy; the last layer)."},
      {.path = "name", .presence = Presence::Derived, .default_text = "type and count: conv3",
       .description = "Unique name, for `input`, `shortcut` and the kernel table."},
      {.path = "block", .presence = Presence::Optional,
       .description = "Starts a block (a pipeline unit) of this name here; it must be where only the previous "
                      "layer's output is live. When no layer names one, a block starts at every conv or fc "
                      "layer where the network can be cut."},
      {.path = "input", .presence = Presence::Derived, .default_text = "the previous layer",
       .description = "The earlier layer whose output this layer reads (a branch, such as a projection shortcut); "
                      "`image`: the network's input."},
      {.path = "shortcut", .presence = Presence::Optional,
       .description = "add: the earlier layer (or `image`) whose output is added to the input."},
      {.path = "out", .type = KeyType::Integer, .presence = Presence::Optional, .constraint = Constraint::AtLeastOne,
       .counts = "channels", .description = "conv: output channels; fc: output features."},
      {.path = "kernel", .type = KeyType::Integer, .presence = Presence::Optional,
       .constraint = Constraint::AtLeastOne, .counts = "pixels",
       .description = "conv, maxpool, avgpool: side of the square window."},
      {.path = "stride", .type = KeyType::Integer, .presence = Presence::Derived,
       .default_text = "1 (conv), kernel (pooling)", .constraint = Constraint::AtLeastOne, .counts = "pixels",
       .description = "Step of the window."},
      {.path = "padding", .type = KeyType::Integer, .presence = Presence::Derived,
       .default_text = "dilation*(kernel-1)/2 (conv), 0 (pooling)", .constraint = Constraint::NonNegative,
       .counts = "pixels",
       .description = "Zero rows and columns on each side; a conv's default keeps the size at stride 1."},
      {.path = "groups", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "1",
       .constraint = Constraint::AtLeastOne, .counts = "groups",
       .description = "conv: channel groups; equal to the channels: depthwise."},
      {.path = "dilation", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "1",
       .constraint = Constraint::AtLeastOne, .counts = "pixels", .description = "conv: spacing of the window's taps."},
      {.path = "bias", .type = KeyType::Bool, .presence = Presence::Defaulted, .default_text = "true",
       .description = "conv, fc: a bias per output (PyTorch's default; ResNet's convolutions have none)."},
  };
}

std::vector<KeySpec> stage_fields() {
  using config::names;
  return {
      {.path = "block", .type = KeyType::Enum, .choices = names(kAllStageBlocks, stage_block_name),
       .description = "bottleneck (1x1, 3x3, 1x1 with 4x outputs) or basic (two 3x3) residual blocks; vgg or vgg_bn "
                      "(with batch norm) 3x3 convolutions closed by a 2x2 max pool."},
      {.path = "count", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "blocks",
       .description = "Residual blocks, or VGG convolutions, in the stage."},
      {.path = "channels", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "channels",
       .description = "Width: a bottleneck's inner channels (it outputs 4x), a basic block's or VGG conv's outputs."},
      {.path = "stride", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "1",
       .constraint = Constraint::AtLeastOne, .counts = "pixels",
       .description = "Residual stages: the first block's stride (2 halves the size); VGG stages: 1."},
  };
}

}  // namespace

std::string_view CnnType::description() const {
  return "a convolutional network for images (ResNet, VGG): `network` lists its layers (convolutions, batch norm, "
         "ReLU, pooling, residual adds, fully connected, loss), or `stages` generates ResNet or VGG stages; trained "
         "with data and pipeline parallelism.";
}

std::vector<KeySpec> CnnType::keys() const {
  using config::names;
  return {
      {.path = "image.height", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "pixels",
       .description = "Input image height."},
      {.path = "image.width", .type = KeyType::Integer, .constraint = Constraint::AtLeastOne, .counts = "pixels",
       .description = "Input image width."},
      {.path = "image.channels", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "3",
       .constraint = Constraint::AtLeastOne, .counts = "channels", .description = "Input image channels."},
      {.path = "classes", .type = KeyType::Integer, .presence = Presence::Optional,
       .constraint = Constraint::AtLeastOne, .counts = "classes",
       .description = "Classes of the loss: required with `stages`; with `network`, checked against the loss's input."},
      {.path = "network", .type = KeyType::Record, .presence = Presence::Optional,
       .description = "The layers in order, e.g. [{type: conv, out: 64, kernel: 7, stride: 2, bias: false}, {type: "
                      "bn}, {type: relu}, ...]; each reads the previous layer's output unless `input` names "
                      "another. Give `network` or `stages`.",
       .list = true, .fields = network_fields()},
      {.path = "stages", .type = KeyType::Record, .presence = Presence::Optional,
       .description = "ResNet or VGG stages, e.g. [{block: bottleneck, count: 3, channels: 64}, {block: bottleneck, "
                      "count: 4, channels: 128, stride: 2}, ...], between `stem` and the head (`head_pool`, "
                      "`head_fc`, then an fc to `classes` and the loss).",
       .list = true, .fields = stage_fields()},
      {.path = "stem", .type = KeyType::Enum, .choices = names(kAllStemKinds, stem_name),
       .presence = Presence::Defaulted, .default_text = "resnet",
       .description = "With `stages`: resnet (7x7/2 conv, batch norm, ReLU, 3x3/2 max pool) or none (VGG)."},
      {.path = "stem_channels", .type = KeyType::Integer, .presence = Presence::Defaulted, .default_text = "64",
       .constraint = Constraint::AtLeastOne, .counts = "channels", .description = "With `stages`: the stem's outputs."},
      {.path = "stride_in", .type = KeyType::Enum, .choices = names(kAllStrideIns, stride_in_name),
       .presence = Presence::Defaulted, .default_text = "3x3",
       .description = "With `stages`: where a downsampling bottleneck strides: 3x3 (ResNet v1.5, torchvision) or "
                      "1x1 (v1, He et al. 2016)."},
      {.path = "head_pool", .type = KeyType::Enum, .choices = names(kAllHeadPools, head_pool_name),
       .presence = Presence::Defaulted, .default_text = "global_avg",
       .description = "With `stages`: global_avg (ResNet) or flatten (VGG) before the fully connected layers."},
      {.path = "head_fc", .type = KeyType::Integer, .presence = Presence::Optional,
       .constraint = Constraint::AtLeastOne, .counts = "features",
       .description = "With `stages`: hidden fully connected layers before the classifier, each with ReLU (VGG: "
                      "[4096, 4096]).",
       .list = true},
      {.path = "memory_format", .type = KeyType::Enum, .choices = names(kAllMemoryFormats, memory_format_name),
       .presence = Presence::Defaulted, .default_text = "channels_last",
       .description = "How activations are stored: channels_last (NHWC, what tensor-core convolutions compute in) or "
                      "channels_first (NCHW, PyTorch's default): then every convolution call transposes its two "
                      "operands to NHWC and its result back, a read and a write of each."},
      {.path = "head_dropout", .type = KeyType::Bool, .presence = Presence::Defaulted, .default_text = "false",
       .description = "With `stages`: dropout after each hidden fully connected layer (VGG)."},
  };
}

std::shared_ptr<const config::WorkloadParams> CnnType::build(const ConfigDocument& doc) const {
  auto d = read_cnn_document(doc);
  if (!d) throw Error(fmt::format("{}: a cnn workload needs image.height, image.width and one of network, stages",
                                  doc.file()));
  auto spec = std::make_shared<CnnSpec>();
  spec->image = d->image;
  spec->layers = std::move(d->layers);
  spec->form = d->form;
  spec->classes = d->classes;
  spec->memory_format = config::value_named(kAllMemoryFormats, memory_format_name, doc.get_string("memory_format"));
  if (spec->classes == 0) {  // the network form: the features the loss receives
    const CnnNetwork net = analyze_network(spec->layers, spec->image);
    if (!net.layers.empty() && net.layers.back().known) spec->classes = static_cast<int>(net.layers.back().in.c);
  }
  return spec;
}

namespace {

/// An explicit training.batchnorm_relu_fusion: true needs the tensors the fused kernels exist for;
/// a profile's fusion just leaves such a chain unfused (batchnorm_relu_fusion_applies).
void check_batchnorm_relu_fusion(const ConfigDocument& scenario, const ConfigDocument& workload,
                                 std::vector<Diagnostic>& out) {
  const auto* fusion = scenario.find("training.batchnorm_relu_fusion");
  if (!fusion || fusion->is_derived() || !fusion->as_bool()) return;
  const auto* precision = scenario.find("training.precision");
  const auto* format = workload.find("memory_format");
  const std::string dtype = precision ? precision->as_string() : std::string(dtype_name(DType::bf16));
  const std::string layout = format ? format->as_string() : std::string(memory_format_name(MemoryFormat::ChannelsLast));
  const bool sixteen_bit = dtype == dtype_name(DType::fp16) || dtype == dtype_name(DType::bf16);
  if (sixteen_bit && layout == memory_format_name(MemoryFormat::ChannelsLast)) return;
  config::report_at(*fusion,
                    fmt::format("the fused batch norm + ReLU kernels are modelled for 16-bit channels-last tensors "
                                "(fp16 or bf16, memory_format channels_last), as MXNet's recipe runs them; this "
                                "scenario trains in {} with memory_format {}: set it false",
                                dtype, layout),
                    out);
}

}  // namespace

void CnnType::check_scenario(const ConfigDocument& scenario, const ConfigDocument& workload,
                             std::vector<Diagnostic>& out) const {
  if (const auto* tp = scenario.find("parallelism.tp"); tp && tp->as_integer() != 1)
    config::report(scenario, "parallelism.tp",
                   fmt::format("a cnn workload trains with data and pipeline parallelism (parallelism.dp, "
                               "parallelism.pp); tensor parallelism of convolutions is not modelled: tp must be 1, "
                               "got {}",
                               tp->as_integer()),
                   out);
  if (const auto* sp = scenario.find("parallelism.sequence_parallel"); sp && sp->as_bool())
    config::report(scenario, "parallelism.sequence_parallel",
                   "sequence parallelism splits a transformer's sequence; a cnn workload allows false only (use "
                   "parallelism.dp and parallelism.pp)",
                   out);
  if (const auto* ep = scenario.find("parallelism.ep"); ep && ep->as_integer() != 1)
    config::report(scenario, "parallelism.ep",
                   fmt::format("expert parallelism splits a Mixture of Experts; a cnn workload has no experts: ep "
                               "must be 1, got {}",
                               ep->as_integer()),
                   out);
  if (const auto* precision = scenario.find("training.precision"); precision && precision->as_string() == "fp8")
    config::report(scenario, "training.precision", fp8_training_refusal(name(), kFp8Kernels), out);
  check_batchnorm_relu_fusion(scenario, workload, out);
  check_op_recompute_refused(scenario, name(), out);
}

std::optional<std::int64_t> CnnType::pipeline_units(const ConfigDocument& doc) const {
  const auto d = read_cnn_document(doc);
  if (!d || (d->from_stages && d->classes == 0)) return std::nullopt;
  const CnnNetwork net = analyze_network(d->layers, d->image);
  if (!net.ok()) return std::nullopt;
  return static_cast<std::int64_t>(net.blocks.size());
}

std::string CnnType::shape_text(const config::WorkloadSpec& workload) const {
  const auto& s = workload.as<CnnSpec>();
  const CnnNetwork net = analyze_network(s.layers, s.image);
  return fmt::format("{}x{}x{} images, {}: {} layers in {} blocks, {} classes", s.image.height, s.image.width,
                     s.image.channels, s.form, s.layers.size(), net.blocks.size(), s.classes);
}

config::WorkloadSpec make_cnn_workload(std::string name, CnnSpec spec) {
  config::WorkloadSpec w;
  w.name = std::move(name);
  w.type = "cnn";
  w.params = std::make_shared<CnnSpec>(std::move(spec));
  return w;
}

}  // namespace clearfog::workload
