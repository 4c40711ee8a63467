#pragma once
// Fits an accelerator file's efficiencies to kernel measurements (KernelMeasurements.hpp,
// `clearfog calibrate`, docs/calibration.md). Each efficiency is fitted on the rows that depend on
// it, in an order where each fit only leans on those before it: the launch overhead on the empty
// kernels (replayed from a CUDA graph where measured, else launched eagerly), memory.efficiency on copies beyond the L2,
// memory.in_place_efficiency on the elementwise operators beyond it,
// gemm.fixed_overhead on the GEMMs shorter than 20 launch overheads, the GEMM efficiency of each dtype
// on its compute-bound GEMMs longer than that, memory.random_access_efficiency on the
// gathers, attention.<kernel>.forward_share and backward_share on the attention rows of each kernel a
// measurement names (rows that name none are checks). The copies inside
// the L2 check the model; sram.shared_bandwidth is not fitted (AcceleratorFit.cpp says why).
// A fit minimises the mean squared log-ratio of the model's time (the same model a run prices
// kernels with) to the measured one, by golden-section search: the model's time falls
// monotonically as an efficiency rises. A call timed at
// the host's issue rate rather than the device's (judged against the `launch eager` row's host time,
// AcceleratorFit.cpp says how) is reported in its own class and fitted to nothing.
#include <string>
#include <vector>

#include "config/AcceleratorSpec.hpp"
#include "kernels/KernelMeasurements.hpp"

namespace clearfog::kernels {

/// How a fit ended. Only a value that improved the rows' misfit, away from the search's bounds, is
/// a measurement of the key; the others keep (or are reported with) the value they started from.
enum class FitStatus {
  Fitted,       // the rows constrain it and the fit moved it
  Insensitive,  // the rows do not depend on it (no better misfit anywhere): kept as it was
  AtBound,      // the best value is the search's bound: the model cannot reach the rows this way
};

struct FittedValue {
  std::string key;         // "gemm.dtype_efficiency.bf16"
  double before = 0;       // SI
  double after = 0;        // SI (Insensitive: before)
  std::size_t rows = 0;    // measurements fitted to
  std::string rows_text;   // "24 gemm rows in bf16"
  FitStatus status = FitStatus::Fitted;
};

/// The model against one class of measured kernels, before and after the fit.
struct ClassResidual {
  std::string kernel_class;  // "gemm bf16", "copy beyond L2", "attention fwd"
  std::size_t rows = 0;
  double mean_error_before = 0;  // signed mean of measured / predicted time - 1 (> 0: the model is fast)
  double mean_error_after = 0;
  double worst_error_after = 0;  // the largest |measured / predicted - 1|
};

struct AcceleratorFit {
  config::AcceleratorSpec fitted;
  std::vector<FittedValue> values;
  std::vector<ClassResidual> residuals;
  std::vector<std::string> skipped;  // rows the model cannot price here, and why
};

/// The model's time for a measured kernel on `accelerator`; < 0 when it cannot price it (a dtype
/// the accelerator lacks).
double predicted_time_s(const config::AcceleratorSpec& accelerator, const KernelMeasurement& row);

/// Fits `start`'s efficiencies to `measurements`; values with no rows to fit, or whose rows do not
/// depend on them, keep their value; a fit that ends at a bound keeps it too (FitStatus).
AcceleratorFit fit_accelerator(const config::AcceleratorSpec& start, const KernelMeasurements& measurements);

}  // namespace clearfog::kernels
