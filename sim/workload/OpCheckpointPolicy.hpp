#pragma once
// PyTorch's per-op selective activation checkpointing as torchtitan configures it
// (--activation_checkpoint.mode selective --activation_checkpoint.selective_ac_option op): each
// transformer layer runs under torch.utils.checkpoint with a policy that saves the outputs of
// aten.mm and of the fused attention kernels, except every second aten.mm of the layer's forward,
// and recomputes every other op before the layer's backward (docs/recompute.md).
#include <set>
#include <string>
#include <vector>

#include "kernels/Kernel.hpp"

namespace clearfog::workload {

struct OpCheckpointSplit {
  /// The forward kernels re-run before the backward, in forward order.
  std::vector<kernels::Kernel> recomputed;
  /// Bytes of the saved outputs, one micro-batch, this device.
  double saved_B = 0;
};

/// Splits a layer's forward kernels (in the order they run) as the policy does. A plain matrix
/// product (a GEMM of one instance, what nn.Linear dispatches as aten.mm) is saved when it is the
/// 1st, 3rd, 5th... of the layer; a fused attention kernel is saved with its fp32 logsumexp;
/// batched products (aten.bmm: those named in `batched`, whatever their instance count, and any
/// GEMM of several instances), grouped GEMMs and memory-bound kernels are recomputed.
/// `output_element_B`: bytes of an element of a saved output (the activations' type; an fp8
/// GEMM writes it too).
OpCheckpointSplit split_op_checkpoint(const std::vector<kernels::Kernel>& forward, double output_element_B,
                                      const std::set<std::string>& batched = {});

}  // namespace clearfog::workload
