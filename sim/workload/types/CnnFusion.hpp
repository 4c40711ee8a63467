#pragma once
// Which layers of a CNN a stack that fuses batch norm with its activation runs as one kernel
// (framework profiles' KernelFusions::batchnorm_relu: MXNet's --fuse-bn-relu and
// --fuse-bn-add-relu, cuDNN's NHWC batch norm with an activation). Pure. docs/workloads.md, "Kernels".
#include <cstddef>
#include <optional>
#include <vector>

#include "workload/types/CnnNetwork.hpp"

namespace clearfog::workload {

/// A batch norm, the residual add on its output if there is one (the batch norm on the add's main
/// path, the other addend its shortcut), and the ReLU that ends the chain.
struct BatchNormReluChain {
  std::size_t batchnorm = 0;
  std::optional<std::size_t> add;
  std::size_t relu = 0;
};

/// Every chain of `layers` that fuses: a batch norm whose output only a ReLU reads, or only an add
/// (as its input, not its shortcut) whose output only a ReLU reads, all three in one block. In
/// layer order.
std::vector<BatchNormReluChain> batchnorm_relu_chains(const std::vector<CnnLayer>& layers, const CnnNetwork& net);

}  // namespace clearfog::workload
