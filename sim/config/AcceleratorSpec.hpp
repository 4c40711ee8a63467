#pragma once
// One accelerator (GPU, TPU-like chip, ...), as parsed from an accelerator YAML file. SI units.
#include <map>
#include <string>

#include "core/DType.hpp"

namespace clearfog::config {

struct AcceleratorSpec {
  std::string name;
  std::string source;                      // where the figures come from
  int compute_units = 0;                   // SMs, cores, MXUs
  double clock_Hz = 0;                     // boost clock
  std::map<DType, double> peak_flops;      // dense peak per dtype, FLOP/s; absent = not supported
  double memory_capacity_B = 0;            // HBM / DRAM capacity
  double memory_bandwidth_Bps = 0;         // HBM / DRAM bandwidth
  double sram_per_unit_B = 0;              // shared memory / scratchpad per compute unit
  double sram_shared_B = 0;                // L2 or chip-wide SRAM
  double power_W = 0;                      // TDP

  /// Peak for a dtype; std::out_of_range if unsupported. Callers check supports() first (the
  /// scenario validator does for the training precision).
  [[nodiscard]] bool supports(DType d) const { return peak_flops.count(d) != 0; }
  [[nodiscard]] double peak(DType d) const { return peak_flops.at(d); }
};

}  // namespace clearfog::config
