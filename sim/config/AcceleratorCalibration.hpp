#pragma once
// Which of an accelerator's efficiencies were fitted to a measurement. An accelerator file names
// the measurement behind each fitted value under `calibrated:` (`calibrated.gemm.dtype_efficiency.
// bf16: "…"`); every efficiency a run uses without one is an assumption or a default, and the run
// says so ("uncalibrated: …", docs/calibration.md). The keys that can be calibrated are declared here
// once: the key table, the builder, the checks and the summary derive from this list.
#include <optional>
#include <string>
#include <vector>

#include "config/AcceleratorSpec.hpp"
#include "core/DType.hpp"

namespace clearfog::config {

/// The efficiency keys of an accelerator file, in file order: gemm.efficiency, gemm.dtype_efficiency.<d>
/// per dtype, memory.efficiency, memory.random_access_efficiency, sram.shared_bandwidth,
/// kernel.launch_overhead, gemm.fixed_overhead, attention.<kernel>.forward_share and backward_share
/// per fused attention kernel.
const std::vector<std::string>& calibratable_accelerator_keys();

/// What a run leans on that no measurement backs.
struct UncalibratedValue {
  std::string accelerator;  // the part's name
  std::string key;          // "gemm.dtype_efficiency.bf16"
  std::string why;          // "falls back to gemm.efficiency = 0.75, measured in no particular dtype"
};

/// The kernels a run prices, as far as calibration goes.
struct CalibrationUse {
  std::vector<DType> gemm_dtypes;  // dtypes its GEMMs run in
  bool gathers = false;            // embedding-bag gathers (memory.random_access_efficiency)
  std::optional<AttentionKernel> attention_kernel{};  // the fused attention kernel it runs, if any
};

/// The efficiencies `use` needs from `accelerator` that are not calibrated: a GEMM dtype without its
/// own calibrated gemm.dtype_efficiency (gemm.efficiency is a fallback, never a measurement of every
/// dtype), memory.efficiency, kernel.launch_overhead, sram.shared_bandwidth where the L2 is modelled,
/// memory.random_access_efficiency where it gathers.
std::vector<UncalibratedValue> uncalibrated_values(const AcceleratorSpec& accelerator, const CalibrationUse& use);

struct ScenarioSpec;
/// uncalibrated_values() of every accelerator kind of the scenario's platform, for what it trains:
/// GEMMs in its precision (fp8 training also runs bf16 GEMMs: attention), gathers for DLRM.
std::vector<UncalibratedValue> uncalibrated_values(const ScenarioSpec& scenario);

}  // namespace clearfog::config
