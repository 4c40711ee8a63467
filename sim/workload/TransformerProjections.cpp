// The weight GEMMs that read a branch's normalised input (TransformerModel.hpp): fused as Megatron
// holds them, or one per nn.Linear as torchtitan's and Hugging Face's Llama modules hold them
// (KernelFusions::projections; docs/frameworks.md, "Separate projections").
#include <string>

#include "workload/TransformerKernelParts.hpp"
#include "workload/TransformerModel.hpp"

namespace clearfog::workload {

using kernels::GemmShape;
using kernels::Kernel;
using namespace parts;  // NOLINT: the helpers are this file's vocabulary

std::vector<TransformerModel::Projection> TransformerModel::input_projections(int layer, Branch branch) const {
  const Dims d = dims_of(*this, layer);
  const MlpKind mlp = spec_.layer(layer).mlp;
  const bool separate = !fusions_.projections;
  if (branch == Branch::Attention) {
    if (!separate) return {{"qkv", GemmShape{d.tokens(), (d.a + 2 * d.k) * d.d, d.h, 1}}};
    return {{"q", GemmShape{d.tokens(), d.a * d.d, d.h, 1}},
            {"k", GemmShape{d.tokens(), d.k * d.d, d.h, 1}},
            {"v", GemmShape{d.tokens(), d.k * d.d, d.h, 1}}};
  }
  if (!separate || !gated(mlp)) return {{"fc1", GemmShape{d.tokens(), mlp_in_width(d, mlp), d.h, 1}}};
  return {{"fc1_gate", GemmShape{d.tokens(), d.f, d.h, 1}}, {"fc1_up", GemmShape{d.tokens(), d.f, d.h, 1}}};
}

void TransformerModel::push_input_projections(std::vector<Kernel>& out, const std::vector<Projection>& projections,
                                              bool forward) const {
  if (forward) {
    for (const auto& p : projections) push_linear(out, *this, p.name, p.shape, true);
    return;
  }
  for (auto p = projections.rbegin(); p != projections.rend(); ++p) push_linear_backward(out, *this, p->name, p->shape);
  // Each projection's input gradient lands in its own tensor; autograd adds them up, one kernel per
  // extra projection (read two, write one).
  const double N = static_cast<double>(projections.front().shape.m) * static_cast<double>(projections.front().shape.k);
  for (std::size_t i = 1; i < projections.size(); ++i)
    out.push_back(Kernel::make_memory_bound(projections.front().name + ".dgrad_sum" + std::to_string(i),
                                            3 * N * dtype_bytes(dtype_), kAddFlops * N, dtype_));
}

}  // namespace clearfog::workload
