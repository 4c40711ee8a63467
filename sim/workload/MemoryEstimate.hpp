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

/// Estimate for one device of the scenario (data parallelism only in the foundation). Throws
/// clearfog::Error for tp or pp != 1 and for a precision that is not a training one (int8).
MemoryEstimate estimate_memory(const config::ScenarioSpec& scenario);

/// Activations one layer saves for its backward, one micro-batch, no parallelism, no recompute:
/// Korthikanti Table 2, s*b*h*(34 + 5*a*s/h) bytes for 16-bit activations (times 2 for fp32/tf32).
double activation_bytes_per_layer(const config::WorkloadSpec& workload, int micro_batch, DType precision);

}  // namespace clearfog::workload
