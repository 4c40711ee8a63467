#pragma once
// Per-device memory of a training layout, summed from the model description: the model states of
// each pipeline stage's parameters (ZeRO paper, Rajbhandari et al. SC20, Sec. 3.1), the
// activations its blocks keep for the micro-batches its schedule holds in flight (Korthikanti et
// al. 2022, Table 2, term by term), and communication and recomputation buffers. The most loaded
// stage is reported. Sources and derivations: docs/compute-model.md ("Memory per device").
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "parallel/StagePartition.hpp"
#include "workload/ModelDescription.hpp"

namespace clearfog::parallel {

/// A plan that fits but leaves less than this share of the device free is flagged: measured runs
/// that close to capacity slow down where the model does not (the caching allocator's retries and
/// fragmentation; FSDP's all-gather rate limiting), as the MPT hold-out rows at the edge of 40 GB
/// show (docs/validation.md). A flag, not a cost: on one H200 a step capped at 1.03x its peak ran
/// as fast as an uncapped one (platforms/calibration/h200-sxm-pressure.csv); nothing yet quantifies
/// the multi-GPU slowdown.
inline constexpr double kNearMemoryLimitShare = 0.10;

struct MemoryEstimate {
  double weights_B = 0;          // 16-bit (or fp32) working weights
  double gradients_B = 0;        // gradients in the training precision
  double optimizer_B = 0;        // fp32 master weights + optimizer moments
  double activations_B = 0;      // stored for backward, all micro-batches in flight
  double buffers_B = 0;          // communication buckets and temporaries
  double capacity_B = 0;         // device memory
  int stage = 0;                 // the pipeline stage these figures belong to
  [[nodiscard]] double total_B() const {
    return weights_B + gradients_B + optimizer_B + activations_B + buffers_B;
  }
  [[nodiscard]] bool fits() const { return total_B() <= capacity_B; }
  /// Fits, with less than kNearMemoryLimitShare of the device left.
  [[nodiscard]] bool near_limit() const { return fits() && total_B() > (1 - kNearMemoryLimitShare) * capacity_B; }
};

/// Estimate for the most loaded device of the scenario. Throws clearfog::Error for a precision
/// that is not a training one (int8).
MemoryEstimate estimate_memory(const config::ScenarioSpec& scenario);

/// Model states of `parameters` parameters on one device, mixed-precision (ZeRO paper Sec. 3.1:
/// 2 + 2 + 12 bytes per parameter with Adam), sharded over `dp` ranks by ZeRO stage 0 … 3.
struct ModelStates {
  double weights_B = 0, gradients_B = 0, optimizer_B = 0;
  [[nodiscard]] double total_B() const { return weights_B + gradients_B + optimizer_B; }
};
/// The fp32 gradient a mixed-precision optimizer with master copies reads (docs/compute-model.md,
/// "Memory"): none (the ZeRO paper's 2 + 2 + 12); accumulated into directly (Megatron's fp32
/// main_grad with gradient-accumulation fusion: the only gradient, 4 bytes); or a copy beside the
/// 16-bit gradient, sharded with the optimizer states.
enum class MasterGradient { None, Accumulated, Copied };
ModelStates model_state_bytes(double parameters, DType precision, config::Optimizer optimizer, int zero_stage, int dp,
                              MasterGradient master = MasterGradient::None);
/// The master gradient a scenario's framework keeps (none outside 16-bit training).
MasterGradient master_gradient(const config::ScenarioSpec& scenario);

/// The largest sum of activations `stage` holds at once: walking its schedule, a chunk's forward
/// adds `chunk_activation_B[chunk]` (indexed by the stage's chunk 0 … v-1) until its backward
/// removes it.
double peak_stage_activations(const config::ScenarioSpec& scenario, int stage,
                              const std::vector<double>& chunk_activation_B);

}  // namespace clearfog::parallel
