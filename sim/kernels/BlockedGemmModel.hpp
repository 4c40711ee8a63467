#pragma once
// Blocked-GEMM cost model: a GEMM runs as output tiles, one per compute unit at a time, in waves;
// each wave takes the slowest of its tiles' compute, their L2 (chip-wide SRAM) traffic and their
// HBM traffic; the model picks the fastest tile as a GEMM library's heuristic does. Memory-bound
// kernels move their bytes at the bandwidth of the level their working set fits in.
// docs/compute-model.md ("Blocked-GEMM model") gives the equations.
#include <string>
#include <string_view>

#include "config/AcceleratorSpec.hpp"
#include "kernels/Kernel.hpp"

namespace clearfog::kernels {

/// What limited a GEMM: the tiles' arithmetic, L2 traffic or HBM/DRAM traffic.
enum class GemmBound { Compute, L2, Hbm };
std::string_view gemm_bound_name(GemmBound b);

/// The arithmetic a GEMM runs in: a dense peak and the bytes of one operand element. For the
/// training dtypes: peak(dtype) and dtype_bytes(dtype); low-precision GEMMs pass others (int4).
struct GemmArithmetic {
  std::string name;            // "bf16", "int4"
  double peak_ops = 0;         // dense peak, OP/s (one multiply-add = 2 OP)
  double element_bytes = 0;    // bytes per operand and result element
  double efficiency = 1;       // share of the peak a compute-bound tile sustains (gemm.dtype_efficiency)
};

struct GemmEstimate {
  double time_s = 0;             // launch overhead + the waves
  double flops_per_s = 0;        // useful 2*m*n*k*batch / time_s
  double efficiency = 0;         // flops_per_s / datasheet peak
  GemmBound bound = GemmBound::Compute;  // what limits the full waves (the only wave if there is one)
  config::TileShape tile;        // the tile picked
  long long tiles = 0;           // ceil(m/Mt) * ceil(n/Nt) * batch
  long long waves = 0;           // ceil(tiles / units)
  double wave_efficiency = 0;    // tiles / (waves * units)
  double tile_efficiency = 0;    // useful MACs / MACs computed with padded tiles
  double tile_compute_s = 0;     // one tile's arithmetic at the per-unit rate
  double l2_bytes = 0;           // operand and result traffic between the units and L2
  double hbm_bytes = 0;          // traffic between L2 and HBM/DRAM
  long long split_k = 1;         // slices of k (GemmShape::split_k); the fields above describe one slice's GEMMs
  double reduction_s = 0;        // the kernel summing the slices' partial products (in time_s)
};

/// A fused attention pass priced as waves of FlashAttention-2 tiles (kernels/FusedAttentionTiling.hpp).
struct AttentionEstimate {
  double time_s = 0;             // launch overhead + the waves
  double flops_per_s = 0;        // useful matrix-product FLOPs / time_s
  double efficiency = 0;         // flops_per_s / datasheet peak
  GemmBound bound = GemmBound::Compute;  // what limits the full waves (the only wave if there is one)
  long long block_rows = 0;      // B
  long long tiles = 0;           // batch_heads * ceil(s / B)
  long long waves = 0;           // ceil(tiles / units)
  double wave_efficiency = 0;    // tiles / (waves * units)
  double tile_compute_s = 0;     // one tile's arithmetic at the per-unit rate
  double l2_bytes = 0;           // traffic between the units and L2: every tile's rows and its streamed head
  double hbm_bytes = 0;          // traffic between L2 and HBM/DRAM
};

class BlockedGemmModel final : public KernelCostModel {
public:
  /// Throws clearfog::Error naming the accelerator on a figure the model cannot use (no compute
  /// units, no memory bandwidth, no tile, efficiency outside (0, 1]).
  explicit BlockedGemmModel(const config::AcceleratorSpec& accelerator);

  [[nodiscard]] KernelCost cost(const Kernel& kernel) const override;
  [[nodiscard]] std::string name() const override { return "blocked-gemm"; }

  /// The fastest of the accelerator's tiles (each in both orientations) for a GEMM in `dtype`, and
  /// of the ways to split k when the shape allows it; clearfog::Error if the accelerator has no
  /// peak for it.
  [[nodiscard]] GemmEstimate estimate(const GemmShape& shape, DType dtype) const;
  /// Same, for any arithmetic (int4, packed low precision).
  [[nodiscard]] GemmEstimate estimate(const GemmShape& shape, const GemmArithmetic& arithmetic) const;
  /// One given tile, no choice.
  [[nodiscard]] GemmEstimate estimate_tile(const GemmShape& shape, const GemmArithmetic& arithmetic,
                                           config::TileShape tile) const;
  /// A fused attention pass: tiles of B rows of one head, in waves, each wave the slowest of its
  /// tiles' arithmetic (at the GEMM efficiency), its L2 and its HBM traffic. Never faster than the
  /// roofline of its FLOPs and compulsory bytes.
  [[nodiscard]] AttentionEstimate estimate_attention(const AttentionShape& shape, DType dtype) const;
  /// A grouped GEMM with one tile for all groups (as a grouped-GEMM kernel is compiled): every
  /// group's tiles are scheduled one after the other on the units; a wave lasts the slowest of its
  /// tiles' arithmetic, its L2 and its HBM traffic. The fastest tile of the accelerator's.
  [[nodiscard]] GemmEstimate estimate_grouped(const std::vector<GemmShape>& groups, DType dtype) const;
  /// A copy: launch overhead + bytes at the bandwidth of the level its working set fits in
  /// (chip-wide SRAM if it fits and that level is modelled, else HBM/DRAM at memory.efficiency).
  [[nodiscard]] double memory_bound_time(double bytes) const;
  /// A framework's memory-bound kernel moving `bytes`, without its launch: as a copy, but from HBM
  /// at the rate such kernels reach in place (memory.in_place_efficiency).
  [[nodiscard]] double in_place_time(double bytes) const;

  [[nodiscard]] const config::AcceleratorSpec& accelerator() const { return accelerator_; }
  /// The arithmetic of a training dtype on this accelerator; clearfog::Error if unsupported.
  [[nodiscard]] GemmArithmetic arithmetic_of(DType dtype) const;

private:
  /// `bytes` moved at the level they fit in: the L2 if modelled and large enough, else HBM at `hbm_Bps`.
  [[nodiscard]] double traffic_time(double bytes, double hbm_Bps) const;
  [[nodiscard]] GemmEstimate fastest_tile(const GemmShape& shape, const GemmArithmetic& arithmetic) const;

  config::AcceleratorSpec accelerator_;
};

}  // namespace clearfog::kernels
