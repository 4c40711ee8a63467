#pragma once
// A workload type (transformer, cnn, ...): its configuration schema (keys, parameters, rules) and
// the model description it makes for a micro-batch and a sharding. Each type is one file under
// workload/types/ and one line in workload/WorkloadTypes.cpp; docs/workloads.md walks through
// adding one.
#include <string>
#include <string_view>
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "config/WorkloadTypeSchema.hpp"
#include "workload/ModelDescription.hpp"

namespace clearfog::workload {

/// What a description is made for: one micro-batch on one device of a tensor-parallel group.
struct DescribeOptions {
  int micro_batch = 1;
  DType precision = DType::bf16;  // activations and weights (the training precision)
  int tp = 1;
  bool sequence_parallel = false;
  config::Attention attention = config::Attention::Unfused;
  int ep = 1;                     // expert parallelism (devices the experts are split over)
  config::MoeSpec moe;            // token routing of MoE layers
  config::KernelFusions fusions;  // the framework profile's fused kernels
  int node_devices = 1;           // devices per node (hosts of DLRM's table-row-wise sharding)
};

class WorkloadType : public config::WorkloadTypeSchema {
public:
  /// The blocks of the model for `options`. Throws clearfog::Error for a combination the type's
  /// checks reject (they run first on every loaded scenario, so this is for code-built specs).
  [[nodiscard]] virtual ModelDescription describe(const config::WorkloadSpec& workload,
                                                  const DescribeOptions& options) const = 0;
  /// One line for the summary: "32 layers, hidden 4096, 32 heads (8 KV), SwiGLU 11008, RMSNorm, ...".
  [[nodiscard]] virtual std::string shape_text(const config::WorkloadSpec& workload) const = 0;
};

/// Why `type` (its kernels named by `kernels`) refuses fp8 training: fp8 training is modelled as
/// Transformer Engine runs it, for the weight GEMMs of transformer layers (docs/compute-model.md,
/// "FP8 training"), and nothing says how another type's kernels would run in fp8.
std::string fp8_training_refusal(std::string_view type, std::string_view kernels);

/// Reports training.recompute: op on a workload of `type` that has no transformer layers: per-op
/// checkpointing is modelled for transformer layers as torchtitan wraps them (docs/recompute.md).
void check_op_recompute_refused(const config::ConfigDocument& scenario, std::string_view type,
                                std::vector<Diagnostic>& out);

/// Every registered type, in docs order.
const std::vector<const WorkloadType*>& workload_types();
/// The type named `name`; throws clearfog::Error listing the registered ones if there is none.
const WorkloadType& workload_type(std::string_view name);

/// The description of `scenario`'s workload for its micro-batch, precision and tensor parallelism.
ModelDescription describe(const config::ScenarioSpec& scenario);

}  // namespace clearfog::workload
