// The dlrm workload type's model description: embeddings, bottom MLP, interaction, top MLP
// (docs/dlrm.md, "The model").
#include "workload/types/DlrmBlocks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/Errors.hpp"
#include "workload/types/DlrmType.hpp"

namespace clearfog::workload {

using kernels::GemmShape;
using kernels::Kernel;

namespace {

constexpr double kBceFlops = 6;  // sigmoid, log, the loss and its gradient per sample

Kernel elementwise(std::string name, double elements, double accesses, DType dtype) {
  return Kernel::make_memory_bound(std::move(name), elements * accesses * dtype_bytes(dtype), elements, dtype);
}

Kernel gemm(std::string name, long long m, long long n, long long k, DType dtype, long long batch = 1,
            bool split_k = false) {
  GemmShape s{m, n, k, batch};
  s.split_k = split_k;
  return Kernel::make_gemm(std::move(name), s, dtype);
}

Block empty_block(const std::string& name) {
  Block block;
  block.name = block.type = name;
  return block;
}

void finish(Block& block, std::vector<Kernel> forward, std::vector<Kernel> backward, double kept_B, double output_B) {
  block.forward = {make_segment("fwd", std::move(forward))};
  block.backward = {make_segment("bwd", std::move(backward))};
  block.saved_activation_B.fill(kept_B);
  block.output_B = output_B;
}

/// DCNv2 cross layers on D features (Wang et al. 2021, Eq. 1): x_{l+1} = x0 * (W x_l + b) + x_l,
/// W full (D x D) or low-rank U V (D x r, r x D).
void cross_layers(const DlrmSpec& spec, long long batch, long long d, DType dtype, std::vector<Kernel>& fwd,
                  std::vector<Kernel>& bwd, Block& block, double& kept) {
  const double e = dtype_bytes(dtype), x = static_cast<double>(batch * d);
  const long long r = spec.cross_rank;
  for (int l = 0; l < spec.cross_layers; ++l) {
    const std::string n = fmt::format("cross{}", l);
    if (r > 0) {
      fwd.push_back(gemm(n + ".v", batch, r, d, dtype));
      fwd.push_back(gemm(n + ".u", batch, d, r, dtype));
    } else {
      fwd.push_back(gemm(n + ".w", batch, d, d, dtype));
    }
    // bias, x0 * y, + x_l: read y, x0, x_l; write x_{l+1}
    fwd.push_back(elementwise(n + ".combine", x, 4, dtype));
    // gradients of y (dy * x0), of x0 (accumulated: dy * y) and of x_l (dy passes through): read
    // dy, x0, y, the x0 gradient; write the y and x0 gradients; the bias gradient reads dy * x0.
    bwd.push_back(elementwise(n + ".combine.bwd", x, 7, dtype));
    if (r > 0) {
      bwd.push_back(gemm(n + ".u.dgrad", batch, r, d, dtype));
      bwd.push_back(gemm(n + ".u.wgrad", d, r, batch, dtype, 1, true));
      bwd.push_back(gemm(n + ".v.dgrad", batch, d, r, dtype));
      bwd.push_back(gemm(n + ".v.wgrad", r, d, batch, dtype, 1, true));
      block.params.push_back(ParamTensor{n + ".u", static_cast<double>(d * r), static_cast<double>(d * r), ""});
      block.params.push_back(ParamTensor{n + ".v", static_cast<double>(d * r), static_cast<double>(d * r), ""});
      kept += static_cast<double>(batch * r) * e;
    } else {
      bwd.push_back(gemm(n + ".w.dgrad", batch, d, d, dtype));
      bwd.push_back(gemm(n + ".w.wgrad", d, d, batch, dtype, 1, true));
      block.params.push_back(ParamTensor{n + ".w", static_cast<double>(d * d), static_cast<double>(d * d), ""});
    }
    block.params.push_back(ParamTensor{n + ".bias", static_cast<double>(d), static_cast<double>(d), ""});
    kept += 2 * x * e;  // x_l and y = W x_l + b
  }
}

/// `block` run by device `rank` of `ep` alone: its kernels that device's, its parameters held by it
/// only (expert tensors: not reduced over the data-parallel group).
Block model_parallel(Block block, int rank, int ep) {
  for (auto* pass : {&block.forward, &block.backward})
    for (auto& segment : *pass) {
      segment.kernels_by_expert_rank.assign(static_cast<std::size_t>(ep), {});
      segment.kernels_by_expert_rank[static_cast<std::size_t>(rank)] = std::move(segment.kernels);
      segment.kernels.clear();
    }
  for (auto& p : block.params) p.expert = true;
  return block;
}

}  // namespace

Block mlp_block(const std::string& name, long long in, const std::vector<int>& layers, int batch, DType dtype,
                bool input_grad, bool relu_last) {
  Block block = empty_block(name);
  const double e = dtype_bytes(dtype), b = batch;
  std::vector<Kernel> fwd, bwd;
  double kept = 0;
  long long k = in;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string n = fmt::format("fc{}", i);
    const long long out = layers[i];
    const bool relu = relu_last || i + 1 < layers.size();
    fwd.push_back(gemm(n, batch, out, k, dtype));
    // bias (+ ReLU): read and write the output once
    fwd.push_back(elementwise(n + (relu ? ".bias_relu" : ".bias"), b * static_cast<double>(out), 2, dtype));
    kept += b * static_cast<double>(k) * e + (relu ? b * static_cast<double>(out) * e : 0.0);
    block.params.push_back(ParamTensor{n + ".bias", static_cast<double>(out), static_cast<double>(out), ""});
    block.params.push_back(
        ParamTensor{n + ".weight", static_cast<double>(out * k), static_cast<double>(out * k), ""});
    k = out;
  }
  for (std::size_t i = layers.size(); i-- > 0;) {
    const std::string n = fmt::format("fc{}", i);
    const long long out = layers[i], kin = i == 0 ? in : layers[i - 1];
    const bool relu = relu_last || i + 1 < layers.size();
    // ReLU gradient (read dy and y, write dx) and the bias gradient (a column sum of dy)
    if (relu) bwd.push_back(elementwise(n + ".relu.bwd", b * static_cast<double>(out), 3, dtype));
    bwd.push_back(elementwise(n + ".dbias", b * static_cast<double>(out), 1, dtype));
    if (i > 0 || input_grad) bwd.push_back(gemm(n + ".dgrad", batch, kin, out, dtype));
    bwd.push_back(gemm(n + ".wgrad", out, kin, batch, dtype, 1, true));
  }
  // Parameters in the order the backward completes them: the last layer's first.
  std::reverse(block.params.begin(), block.params.end());
  finish(block, std::move(fwd), std::move(bwd), kept, b * static_cast<double>(layers.back()) * e);
  return block;
}

long long interaction_outputs(const DlrmSpec& spec) {
  const long long bottom = spec.bottom_mlp.back();
  if (spec.interaction == DlrmInteraction::Dot) {
    const auto f = static_cast<long long>(spec.tables.size()) + 1;
    return bottom + f * (f - 1) / 2;
  }
  return std::accumulate(spec.tables.begin(), spec.tables.end(), bottom,
                         [](long long s, const EmbeddingTable& t) { return s + t.dim; });
}

Block interaction_block(const DlrmSpec& spec, int batch, DType dtype) {
  Block block = empty_block("interaction");
  const double e = dtype_bytes(dtype), b = batch;
  const long long d = spec.bottom_mlp.back(), f = static_cast<long long>(spec.tables.size()) + 1;
  const auto features = static_cast<double>(interaction_outputs(spec));
  std::vector<Kernel> fwd, bwd;
  double kept = 0;
  if (spec.interaction == DlrmInteraction::Dot) {
    // Stack the F = tables + 1 vectors (read, write), Z = X X^T per sample, gather Z's strict lower
    // triangle next to the bottom output (read Z, write the outputs).
    const double stacked = b * static_cast<double>(f * d), z = b * static_cast<double>(f * f);
    fwd.push_back(elementwise("stack", stacked, 2, dtype));
    fwd.push_back(gemm("dot", f, f, d, dtype, batch));
    fwd.push_back(Kernel::make_memory_bound("tril", (z + b * features) * e, 0, dtype));
    // Scatter the gradient back into dZ, dX = (dZ + dZ^T) X, unstack
    bwd.push_back(Kernel::make_memory_bound("tril.bwd", (b * features + 2 * z) * e, z, dtype));
    bwd.push_back(gemm("dot.dgrad", f, d, f, dtype, batch));
    bwd.push_back(elementwise("stack.bwd", stacked, 2, dtype));
    kept += stacked * e;
  } else {
    fwd.push_back(elementwise("concat", b * features, 2, dtype));
    bwd.push_back(elementwise("concat.bwd", b * features, 2, dtype));
  }
  cross_layers(spec, batch, static_cast<long long>(features), dtype, fwd, bwd, block, kept);
  std::reverse(block.params.begin(), block.params.end());
  finish(block, std::move(fwd), std::move(bwd), kept, b * features * e);
  return block;
}

ModelDescription DlrmType::describe(const config::WorkloadSpec& workload, const DescribeOptions& o) const {
  const auto& spec = workload.as<DlrmSpec>();
  if (o.tp != 1 || o.sequence_parallel)
    throw Error(fmt::format("dlrm workload '{}': tensor and sequence parallelism are not modelled (tp {}); the "
                            "tables are sharded over parallelism.ep",
                            workload.name, o.tp));
  if (o.precision == DType::fp8) throw Error(fp8_training_refusal(name(), kFp8Kernels));
  if (o.micro_batch < 1)
    throw Error(fmt::format("dlrm workload '{}': micro-batch {} must be >= 1", workload.name, o.micro_batch));
  ModelDescription d;
  d.type = std::string(name());
  d.micro_batch = o.micro_batch;
  d.expert_parallel = o.ep;
  d.sample_unit = "records";
  const int ep = std::max(1, o.ep);
  if (spec.bottom_mlp_rank >= ep)
    throw Error(fmt::format("dlrm workload '{}': bottom_mlp_rank {} is outside the {} devices", workload.name,
                            spec.bottom_mlp_rank, ep));
  Block embeddings = embedding_block(spec, place_tables(spec, ep, o.node_devices), o);
  if (spec.bottom_mlp_rank == kAutoPlacement || ep == 1) {
    d.blocks.push_back(std::move(embeddings));
    d.blocks.push_back(mlp_block("bottom_mlp", spec.dense_features, spec.bottom_mlp, o.micro_batch, o.precision, false, true));
  } else {
    // Model parallel: one device runs the MLP for the group's samples before the all-to-all that
    // carries its output with the pooled embeddings; its gradient comes back with theirs.
    d.blocks.push_back(model_parallel(mlp_block("bottom_mlp", spec.dense_features, spec.bottom_mlp,
                                                o.micro_batch * ep, o.precision, false, true),
                                      spec.bottom_mlp_rank, ep));
    d.blocks.push_back(std::move(embeddings));
  }
  d.blocks.push_back(interaction_block(spec, o.micro_batch, o.precision));
  Block top = mlp_block("top_mlp", interaction_outputs(spec), spec.top_mlp, o.micro_batch, o.precision, true, false);
  top.forward.front().kernels.push_back(
      Kernel::make_memory_bound("bce_loss", 2 * o.micro_batch * dtype_bytes(o.precision), kBceFlops * o.micro_batch, o.precision));
  d.blocks.push_back(std::move(top));
  return d;
}

}  // namespace clearfog::workload
