#pragma once
// Per-device memory of data-parallel mixed-precision training (formulas.md: ZeRO paper model
// states, Korthikanti Table 2 activations).
#include "config/ScenarioSpec.hpp"

namespace clearfog::workload {

struct MemoryEstimate {
  double weights_B = 0;          // 16-bit (or fp32) working weights
  double gradients_B = 0;        // gradients in the training precision
  double optimizer_B = 0;        // fp32 master weights + optimizer moments
  double activations_B = 0;      // stored for backward, per in-flight micro-batch
  double buffers_B = 0;          // communication buckets and temporaries
  double capacity_B = 0;         // device memory
  [[nodiscard]] double total_B() const {
    return weights_B + gradients_B + optimizer_B + activations_B + buffers_B;
  }
  [[nodiscard]] bool fits() const { return total_B() <= capacity_B; }
};

/// Estimate for the most loaded device of the scenario: model states of the largest pipeline
/// stage sharded over tp (and over dp by ZeRO), activations of the micro-batches that stage keeps
/// in flight (Korthikanti Table 2 per layer), temporary buffers. Throws clearfog::Error for a
/// precision that is not a training one (int8).
MemoryEstimate estimate_memory(const config::ScenarioSpec& scenario);

/// Model states of `parameters` parameters on one device, mixed-precision (ZeRO paper Sec. 3.1:
/// 2 + 2 + 12 bytes per parameter with Adam), sharded over `dp` ranks by ZeRO stage 0 … 3.
struct ModelStates {
  double weights_B = 0, gradients_B = 0, optimizer_B = 0;
  [[nodiscard]] double total_B() const { return weights_B + gradients_B + optimizer_B; }
};
ModelStates model_state_bytes(double parameters, DType precision, config::Optimizer optimizer, int zero_stage, int dp);

/// Activations one layer saves for its backward, one micro-batch, Korthikanti Table 2 by
/// tensor-parallel degree, sequence parallelism and recomputation (16-bit activations; x2 for 4-byte).
/// Fused attention stores none of the 5*a*s/h term (softmax output, dropout mask, dropout output) but the
/// fp32 logsumexp of every query row, 4*b*a*s/t bytes (not kept under full recomputation).
double activation_bytes_per_layer(const config::WorkloadSpec& workload, int micro_batch, DType precision, int tp,
                                  bool sequence_parallel, config::Recompute recompute,
                                  config::Attention attention = config::Attention::Unfused);

/// Micro-batches whose activations the first pipeline stage holds at once: GPipe m, 1F1B min(p, m),
/// interleaved p * (1 + (p-1)/(p*m)) (Korthikanti Sec. 4.2.3); 1 without pipelining.
double in_flight_micro_batches(const config::ParallelismSpec& parallelism, int micro_batches);

/// Activations one layer saves for its backward, one micro-batch, no parallelism, no recompute:
/// Korthikanti Table 2, s*b*h*(34 + 5*a*s/h) bytes for 16-bit activations (times 2 for fp32/tf32).
double activation_bytes_per_layer(const config::WorkloadSpec& workload, int micro_batch, DType precision);

}  // namespace clearfog::workload
