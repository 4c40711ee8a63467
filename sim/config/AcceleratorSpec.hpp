#pragma once
// One accelerator (GPU, TPU-like chip, IPU, wafer, CPU), as parsed from an accelerator YAML file. SI
// units. docs/compute-model.md says how the kernel models use each figure.
#include <map>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "core/AttentionKernel.hpp"
#include "core/DType.hpp"

namespace clearfog::config {

/// Output tile one compute unit computes at a time in a blocked GEMM: rows x columns of C.
struct TileShape {
  int m = 0;  // rows of C
  int n = 0;  // columns of C
  friend bool operator==(const TileShape&, const TileShape&) = default;
};

/// Largest side of a GEMM tile: far beyond any library's kernels (cuBLAS tiles are at most 256).
inline constexpr int kMaxTileSide = 65536;
/// attention.<kernel>.forward_share and backward_share where a file gives none: conservative, a
/// causal attention then costs what the whole s x s computation costs at the GEMM's efficiency.
inline constexpr double kDefaultAttentionShare = 0.5;

/// The share of its dtype's GEMM efficiency one fused attention kernel sustains on a part, per pass.
struct AttentionShares {
  double forward = kDefaultAttentionShare;
  double backward = kDefaultAttentionShare;
};

/// "256x128" -> {256, 128}; nullopt unless two integers in 1..kMaxTileSide joined by 'x'. The
/// accelerator check reports what this refuses; the builder relies on it.
std::optional<TileShape> parse_tile_shape(std::string_view text);

struct AcceleratorSpec {
  std::string name;
  std::string source;                      // where the figures come from
  int compute_units = 0;                   // SMs, cores, MXUs, tiles
  double clock_Hz = 0;                     // boost clock
  std::map<DType, double> peak_flops;      // dense peak per dtype, FLOP/s; absent = not supported
  double int4_peak_ops = 0;                // dense int4 peak, OP/s; 0 = no native int4 (sub-8-bit via packing)
  double memory_capacity_B = 0;            // HBM / DRAM capacity
  double memory_bandwidth_Bps = 0;         // HBM / DRAM bandwidth, datasheet peak
  double memory_efficiency = 1.0;          // fraction of the peak streaming kernels reach, (0, 1]
  double in_place_efficiency = 1.0;        // fraction of the peak a framework's memory-bound kernels reach, (0, 1]
  double random_access_efficiency = 1.0;   // fraction of the peak scattered row accesses reach (embedding bags), (0, 1]
  double access_granularity_B = 0;         // smallest unit a scattered access moves (GPU sector); 0 = any
  double sram_per_unit_B = 0;              // shared memory / scratchpad per compute unit
  double sram_shared_B = 0;                // L2 or chip-wide SRAM
  double sram_shared_bandwidth_Bps = 0;    // L2 / chip-wide SRAM bandwidth; 0 = level not modelled
  std::vector<TileShape> gemm_tiles{{128, 128}};  // GEMM output tiles the library can pick from
  double gemm_efficiency = 1.0;            // fraction of peak a compute-bound tile sustains, (0, 1]: any dtype ...
  std::map<DType, double> gemm_dtype_efficiency;  // ... but these (gemm.dtype_efficiency)
  double launch_overhead_s = 0;            // fixed time per kernel launch
  /// Per fused attention kernel, the share of the GEMM efficiency its passes sustain
  /// (attention.<kernel>.*_share); a kernel the file does not name takes the defaults.
  std::map<AttentionKernel, AttentionShares> attention_shares;
  double gemm_fixed_s = 0;                 // a GEMM kernel's own fixed time on top: prologue and epilogue
  int simd_width_bits = 0;                 // SIMD register width of CPU-like parts; 0 = matrix units
  double power_W = 0;                      // peak power (TDP); 0 = unknown
  double idle_power_W = 0;                 // idle power; 0 = unknown
  /// Efficiency keys fitted to a measurement (key path -> the measurement, `calibrated.<key>`);
  /// every other efficiency is an assumption or a default, and runs that use it say so.
  std::map<std::string, std::string> calibrated;
  /// The efficiency keys the file gives a value for (the others take their defaults).
  std::vector<std::string> given_efficiencies;

  /// Peak for a dtype; std::out_of_range if unsupported. Callers check supports() first (the
  /// scenario validator does for the training precision).
  [[nodiscard]] bool supports(DType d) const { return peak_flops.count(d) != 0; }
  [[nodiscard]] double peak(DType d) const { return peak_flops.at(d); }
  /// What kernels stream from HBM / DRAM: the peak times memory_efficiency (STREAM-like).
  [[nodiscard]] double achievable_memory_bandwidth_Bps() const { return memory_bandwidth_Bps * memory_efficiency; }
  /// What a framework's memory-bound kernels reach in place: the peak times in_place_efficiency.
  [[nodiscard]] double in_place_memory_bandwidth_Bps() const { return memory_bandwidth_Bps * in_place_efficiency; }
  /// GEMM efficiency in `d`: gemm.dtype_efficiency.<d>, else gemm.efficiency.
  [[nodiscard]] double gemm_efficiency_of(DType d) const {
    const auto it = gemm_dtype_efficiency.find(d);
    return it != gemm_dtype_efficiency.end() ? it->second : gemm_efficiency;
  }
  /// The share of the GEMM efficiency `kernel`'s forward (or backward) sustains.
  [[nodiscard]] double attention_share(AttentionKernel kernel, bool backward) const {
    const auto it = attention_shares.find(kernel);
    const AttentionShares shares = it != attention_shares.end() ? it->second : AttentionShares{};
    return backward ? shares.backward : shares.forward;
  }
};

/// "attention.<kernel>.forward_share" or "....backward_share": the accelerator key of one share.
std::string attention_share_key(AttentionKernel kernel, bool backward);

}  // namespace clearfog::config
