// The cnn workload type's model description: its blocks (residual units, a stem, a head), each
// with its layers' kernels, parameters and kept activations. docs/workloads.md.
#include <fmt/format.h>

#include <map>

#include "core/Errors.hpp"
#include "workload/types/CnnFusion.hpp"
#include "workload/types/CnnLayerKernels.hpp"
#include "workload/types/CnnType.hpp"

namespace clearfog::workload {

namespace {

struct CnnContext {
  const CnnSpec& spec;
  const CnnNetwork& net;
  const DescribeOptions& options;
  std::vector<std::size_t> block_of_layer;
  std::vector<LayerPasses> passes;  // per layer
  std::vector<bool> output_grad;    // per layer: its output's gradient is needed
};

/// A layer's name inside its block: "layer1.0.conv1" in block "layer1.0" is "conv1".
std::string local_name(const std::string& layer, const std::string& block) {
  return layer.size() > block.size() + 1 && layer.starts_with(block + ".") ? layer.substr(block.size() + 1) : layer;
}

/// What makes two blocks price alike: their layers' kinds, sizes, shapes and wiring, not names.
std::string signature(const CnnContext& c, const BlockSpan& span) {
  std::string sig;
  const auto relative = [&](long long producer) {
    return producer < static_cast<long long>(span.begin) ? std::string("in") : std::to_string(producer - static_cast<long long>(span.begin));
  };
  for (std::size_t i = span.begin; i < span.end; ++i) {
    const CnnLayer& l = c.spec.layers[i];
    const LayerGraph& g = c.net.layers[i];
    sig += fmt::format("{}:{},{},{},{},{},{},{}:{}x{}x{}>{}x{}x{}:{}:{}:{}:{};", cnn_layer_name(l.kind), l.out, l.kernel,
                       l.stride, l.padding, l.groups, l.dilation, l.bias, g.in.c, g.in.h, g.in.w, g.out.c, g.out.h,
                       g.out.w, g.input == kImage ? "image" : relative(g.input),
                       l.kind == CnnLayerKind::Add ? relative(g.shortcut) : "", g.consumers, i + 1 == c.spec.layers.size());
  }
  return sig;
}

/// The bytes of the activations each block keeps. A kept tensor counts once, in the block that
/// makes it if a layer there keeps it, else in the first block that keeps it (the input a block
/// receives from the one before); a layer's own tensors (indices, statistics, masks) in its block.
std::vector<double> kept_bytes(const CnnContext& c) {
  std::vector<double> bytes(c.net.blocks.size(), 0.0);
  std::map<long long, std::pair<std::size_t, double>> tensors;  // producer -> (block, bytes)
  for (std::size_t i = 0; i < c.passes.size(); ++i) {
    const std::size_t block = c.block_of_layer[i];
    for (const SavedTensor& t : c.passes[i].saved) {
      if (t.producer == kOwnTensor) {
        bytes[block] += t.bytes;
        continue;
      }
      const std::size_t home = t.producer >= 0 ? c.block_of_layer[static_cast<std::size_t>(t.producer)] : 0;
      auto [it, first] = tensors.emplace(t.producer, std::make_pair(block, t.bytes));
      if (!first && block == home) it->second.first = home;
    }
  }
  for (const auto& [producer, where] : tensors) bytes[where.first] += where.second;
  return bytes;
}

/// Whether the gradient of `producer`'s output is needed (never the image's).
bool gradient_needed(const CnnContext& c, long long producer) {
  return producer >= 0 && c.output_grad[static_cast<std::size_t>(producer)];
}

/// Each batch norm that a ReLU (or an add and a ReLU) ends runs cuDNN's fused kernels, where the
/// chain ends (the shortcut an add reads is computed by then; backward, its gradient is written
/// before the shortcut's layers need it); the batch norm, the add and the ReLU run none of their own.
void fuse_batchnorm_relu(CnnContext& c) {
  for (const BatchNormReluChain& chain : batchnorm_relu_chains(c.spec.layers, c.net)) {
    const std::size_t i = chain.batchnorm;
    const std::string name = local_name(c.spec.layers[i].name, c.net.blocks[c.block_of_layer[i]].name);
    const long long shortcut = chain.add ? c.net.layers[*chain.add].shortcut : kUnresolved;
    c.passes[chain.relu] = fused_batchnorm_relu(c.net.layers[i], name, c.options.micro_batch,
                                                c.options.precision, gradient_needed(c, c.net.layers[i].input),
                                                chain.add.has_value(), gradient_needed(c, shortcut));
    if (chain.add) c.passes[*chain.add] = {};
    c.passes[i] = {};
  }
}

Block make_block(const CnnContext& c, std::size_t index, const std::vector<double>& kept) {
  const BlockSpan& span = c.net.blocks[index];
  const auto& o = c.options;
  const double e = dtype_bytes(o.precision), b = o.micro_batch;
  Block block;
  block.name = span.name;
  block.checkpointable = true;
  block.pipeline_unit = true;
  std::vector<kernels::Kernel> forward, backward;
  for (std::size_t i = span.begin; i < span.end; ++i) {
    const auto& f = c.passes[i].forward;
    forward.insert(forward.end(), f.begin(), f.end());
  }
  for (std::size_t i = span.end; i-- > span.begin;) {
    const std::string name = local_name(c.spec.layers[i].name, span.name);
    const LayerGraph& g = c.net.layers[i];
    if (g.consumers > 1 && c.output_grad[i])
      backward.push_back(gradient_sum(name + ".grad_sum", b * g.out.elements(), g.consumers, o.precision));
    const auto& bw = c.passes[i].backward;
    backward.insert(backward.end(), bw.begin(), bw.end());
    for (auto p : c.passes[i].params) {
      p.name = name + "." + p.name;
      block.params.push_back(std::move(p));
    }
  }
  block.forward = {make_segment("fwd", std::move(forward), CommPoint::named("none"))};
  block.backward = {make_segment("bwd", std::move(backward), CommPoint::named("none"))};
  // Full recomputation keeps the block's input: the image, or the one tensor live at its start.
  const double input_B =
      b * e * (span.begin == 0 ? TensorDims{c.spec.image.channels, c.spec.image.height, c.spec.image.width}.elements()
                               : c.net.layers[span.begin - 1].out.elements());
  block.saved_activation_B[policy_index(config::Recompute::None)] = kept[index];
  block.saved_activation_B[policy_index(config::Recompute::Selective)] = kept[index];
  block.saved_activation_B[policy_index(config::Recompute::Op)] = kept[index];  // refused for CNNs: no effect
  block.saved_activation_B[policy_index(config::Recompute::Full)] = input_B;
  const bool last = span.end == c.spec.layers.size();
  block.output_B = last ? 0.0 : b * e * c.net.layers[span.end - 1].out.elements();
  return block;
}

}  // namespace

ModelDescription CnnType::describe(const config::WorkloadSpec& workload, const DescribeOptions& o) const {
  const auto& spec = workload.as<CnnSpec>();
  if (o.tp != 1 || o.sequence_parallel)
    throw Error(fmt::format("cnn workload '{}': tensor and sequence parallelism are not modelled for CNNs (tp {}, "
                            "sequence parallelism {}); use data and pipeline parallelism",
                            workload.name, o.tp, o.sequence_parallel));
  if (o.micro_batch < 1) throw Error(fmt::format("cnn workload '{}': micro-batch {} must be >= 1", workload.name, o.micro_batch));
  if (o.precision == DType::fp8) throw Error(fp8_training_refusal(name(), kFp8Kernels));
  const CnnNetwork net = analyze_network(spec.layers, spec.image);
  if (!net.ok()) {
    const auto& p = net.problems.front();
    throw Error(fmt::format("cnn workload '{}': layer '{}': {}", workload.name, spec.layers[p.layer].name, p.message));
  }
  CnnContext c{spec, net, o, std::vector<std::size_t>(spec.layers.size(), 0), {}, {}};
  for (std::size_t k = 0; k < net.blocks.size(); ++k)
    for (std::size_t i = net.blocks[k].begin; i < net.blocks[k].end; ++i) c.block_of_layer[i] = k;
  c.output_grad = output_gradients(spec.layers, net);
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    c.passes.push_back(layer_passes(spec.layers[i], net.layers[i], static_cast<long long>(i),
                                    local_name(spec.layers[i].name, net.blocks[c.block_of_layer[i]].name),
                                    o.micro_batch, o.precision, gradient_needed(c, net.layers[i].input),
                                    spec.memory_format));
  }
  if (o.fusions.batchnorm_relu && batchnorm_relu_fusion_applies(o.precision, spec.memory_format))
    fuse_batchnorm_relu(c);
  const auto kept = kept_bytes(c);
  ModelDescription d;
  d.type = std::string(name());
  d.micro_batch = o.micro_batch;
  d.tensor_parallel = 1;
  d.tokens_per_sample = 0;
  d.sample_unit = "images";
  std::map<std::string, std::string> type_of_signature;
  for (std::size_t k = 0; k < net.blocks.size(); ++k) {
    Block block = make_block(c, k, kept);
    const std::string sig = fmt::format("{}kept:{}", signature(c, net.blocks[k]), kept[k]);
    block.type = type_of_signature.emplace(sig, block.name).first->second;
    d.blocks.push_back(std::move(block));
  }
  return d;
}

}  // namespace clearfog::workload
