#pragma once
// The blocks of a DLRM for one micro-batch per device: the sharded embeddings (per-device kernels
// and the all-to-alls between the table owners and the samples' devices), the MLPs and the
// interaction. docs/dlrm.md.
#include <string>
#include <vector>

#include "workload/ModelDescription.hpp"
#include "workload/WorkloadType.hpp"
#include "workload/types/DlrmPlacement.hpp"
#include "workload/types/DlrmSpec.hpp"

namespace clearfog::workload {

/// Index bytes of one lookup (int64, TorchRec's KeyedJaggedTensor values) and of one sample's
/// length per table (int32 lengths / offsets).
inline constexpr double kIndexBytes = 8;
inline constexpr double kLengthBytes = 4;

/// The embeddings on each of `options.ep` devices: the index all-to-all, the table-batched lookup,
/// the pooled-embedding all-to-all(-v) and row-wise reduce-scatter forward; their gradients'
/// all-gather and all-to-all, and the backward (scatter-add and update) kernels.
Block embedding_block(const DlrmSpec& spec, const std::vector<TablePlacement>& placement, const DescribeOptions& options);

/// An MLP of `layers` outputs over `in` features for `batch` samples: each layer a GEMM and a
/// bias + ReLU pass (none after the last when `relu_last` is false); backward the ReLU and bias
/// gradients, the data gradient (unless `input_grad` is false for the first layer) and the weight
/// gradient.
Block mlp_block(const std::string& name, long long in, const std::vector<int>& layers, int batch, DType dtype,
                bool input_grad, bool relu_last);

/// Features the interaction (and cross layers) hand to the top MLP.
long long interaction_outputs(const DlrmSpec& spec);

/// The interaction of the bottom MLP's output with the pooled embeddings, then the cross layers.
Block interaction_block(const DlrmSpec& spec, int batch, DType dtype);

}  // namespace clearfog::workload
