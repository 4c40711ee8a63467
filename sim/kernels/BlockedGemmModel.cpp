#include "kernels/BlockedGemmModel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/Errors.hpp"
#include "kernels/EmbeddingBagModel.hpp"
#include "kernels/FusedAttentionTiling.hpp"

// Equations and their sources: docs/compute-model.md, "Blocked-GEMM model".
namespace clearfog::kernels {

namespace {

struct WaveTiming {
  double time_s;
  GemmBound bound;
};

/// `tiles` tiles in `waves` waves of `units`: each wave lasts the slowest of the tiles' arithmetic
/// (in parallel on the units), the wave's L2 traffic and its HBM traffic; plus the launch and the
/// GEMM kernel's own fixed time (gemm.fixed_overhead).
WaveTiming time_waves(const config::AcceleratorSpec& acc, double tile_compute_s, double l2_per_tile,
                      double hbm_per_tile, double tiles, double waves, double units) {
  const auto wave = [&](double t) {
    WaveTiming w{tile_compute_s, GemmBound::Compute};
    if (acc.sram_shared_bandwidth_Bps > 0) {
      const double l2_s = t * l2_per_tile / acc.sram_shared_bandwidth_Bps;
      if (l2_s > w.time_s) w = {l2_s, GemmBound::L2};
    }
    const double hbm_s = t * hbm_per_tile / acc.achievable_memory_bandwidth_Bps();
    if (hbm_s > w.time_s) w = {hbm_s, GemmBound::Hbm};
    return w;
  };
  const WaveTiming full = wave(units), last = wave(tiles - (waves - 1) * units);
  return {acc.launch_overhead_s + acc.gemm_fixed_s + (waves - 1) * full.time_s + last.time_s,
          waves > 1 ? full.bound : last.bound};
}

double ceil_div(double a, double b) { return std::ceil(a / b); }

// An operand small enough to stay in L2 while the other streams past it once: at most this share of
// the L2 capacity (the rest holds the streamed panels and the results).
constexpr double kResidentOperandShare = 0.5;

// Split-K candidates: powers of two, slices of at least this depth (a few k-steps of a
// tensor-core tile), and no more slices than would fill this many waves with one tile each.
constexpr long long kMinSplitDepth = 64;
constexpr double kMaxSplitWaves = 4;
constexpr double kAccumulatorBytes = 4;  // partial products are accumulated and stored in fp32

}  // namespace

std::string_view gemm_bound_name(GemmBound b) {
  switch (b) {
    case GemmBound::Compute: return "compute";
    case GemmBound::L2: return "l2";
    case GemmBound::Hbm: return "hbm";
  }
  return "?";
}

BlockedGemmModel::BlockedGemmModel(const config::AcceleratorSpec& accelerator) : accelerator_(accelerator) {
  const auto fail = [&](const std::string& what) {
    throw Error(fmt::format("BlockedGemmModel: accelerator '{}': {}", accelerator_.name, what));
  };
  if (accelerator_.compute_units < 1)
    fail(fmt::format("compute_units must be >= 1, got {}", accelerator_.compute_units));
  if (!(accelerator_.memory_bandwidth_Bps > 0))
    fail(fmt::format("memory_bandwidth must be > 0, got {} B/s", accelerator_.memory_bandwidth_Bps));
  if (!(accelerator_.sram_shared_bandwidth_Bps >= 0) || !(accelerator_.sram_shared_B >= 0))
    fail("sram.shared and sram.shared_bandwidth must be >= 0");
  if (!(accelerator_.gemm_efficiency > 0 && accelerator_.gemm_efficiency <= 1))
    fail(fmt::format("gemm.efficiency must be in (0, 1], got {}", accelerator_.gemm_efficiency));
  for (const auto& [dtype, efficiency] : accelerator_.gemm_dtype_efficiency)
    if (!(efficiency > 0 && efficiency <= 1))
      fail(fmt::format("gemm.dtype_efficiency.{} must be in (0, 1], got {}", dtype_name(dtype), efficiency));
  if (!(accelerator_.launch_overhead_s >= 0))
    fail(fmt::format("kernel.launch_overhead must be >= 0, got {} s", accelerator_.launch_overhead_s));
  if (!(accelerator_.gemm_fixed_s >= 0))
    fail(fmt::format("gemm.fixed_overhead must be >= 0, got {} s", accelerator_.gemm_fixed_s));
  if (accelerator_.gemm_tiles.empty()) fail("gemm.tiles is empty");
  for (const auto& tile : accelerator_.gemm_tiles)
    if (tile.m <= 0 || tile.n <= 0) fail(fmt::format("gemm tile {}x{} must have sides > 0", tile.m, tile.n));
  for (const auto& [dtype, peak] : accelerator_.peak_flops)
    if (!(peak > 0)) fail(fmt::format("peak for {} must be > 0, got {} FLOP/s", dtype_name(dtype), peak));
}

GemmArithmetic BlockedGemmModel::arithmetic_of(DType dtype) const {
  if (!accelerator_.supports(dtype))
    throw Error(fmt::format("BlockedGemmModel: accelerator '{}' has no peak for {}", accelerator_.name,
                            dtype_name(dtype)));
  return GemmArithmetic{std::string(dtype_name(dtype)), accelerator_.peak(dtype), dtype_bytes(dtype),
                        accelerator_.gemm_efficiency_of(dtype)};
}

GemmEstimate BlockedGemmModel::estimate_tile(const GemmShape& shape, const GemmArithmetic& arithmetic,
                                             config::TileShape tile) const {
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0 || shape.batch <= 0)
    throw Error(fmt::format("BlockedGemmModel: m, n, k and batch must be > 0, got m={} n={} k={} batch={}", shape.m,
                            shape.n, shape.k, shape.batch));
  if (!(arithmetic.peak_ops > 0) || !(arithmetic.element_bytes > 0) ||
      !(arithmetic.efficiency > 0 && arithmetic.efficiency <= 1))
    throw Error(fmt::format("BlockedGemmModel: arithmetic '{}' needs a peak and an element size > 0 and an "
                            "efficiency in (0, 1]",
                            arithmetic.name));
  const auto& acc = accelerator_;
  const double units = acc.compute_units;
  const double m = static_cast<double>(shape.m), n = static_cast<double>(shape.n);
  const double k = static_cast<double>(shape.k), batch = static_cast<double>(shape.batch);
  const double Mt = tile.m, Nt = tile.n, e = arithmetic.element_bytes;

  GemmEstimate out;
  out.tile = tile;
  // Tile and wave quantization: partial tiles compute the full Mt x Nt block, a partial wave
  // leaves units idle.
  const double tiles_m = ceil_div(m, Mt), tiles_n = ceil_div(n, Nt);
  const double tiles = tiles_m * tiles_n * batch;
  const double waves = ceil_div(tiles, units);
  out.tiles = static_cast<long long>(tiles);
  out.waves = static_cast<long long>(waves);
  out.wave_efficiency = tiles / (waves * units);
  out.tile_efficiency = (m * n) / (tiles_m * Mt * tiles_n * Nt);

  // One tile: 2*Mt*Nt*k FLOP at the unit's share of the sustained peak.
  const double unit_rate = arithmetic.peak_ops * arithmetic.efficiency / units;
  out.tile_compute_s = 2.0 * Mt * Nt * k / unit_rate;

  // L2 traffic of one tile: its A panel (rows x k), its B panel (k x cols) and its C block; rows and
  // columns past the matrix are not loaded.
  const double rows = std::min(Mt, m), cols = std::min(Nt, n);
  const double l2_per_tile = ((rows + cols) * k + rows * cols) * e;
  out.l2_bytes = l2_per_tile * tiles;

  // HBM traffic: compulsory if the working set stays on chip or one operand fits in L2 while the
  // other streams once; otherwise every wave re-reads the A and B panels of the block of tiles it
  // covers (as square as the tile grid allows), the reuse L2 gives between the tiles of a wave.
  // Operands whose footprint is smaller than their matrix (implicit-GEMM convolutions) move their
  // footprint's share of every panel.
  const double fa = shape.a_footprint(), fb = shape.b_footprint(), fc = shape.c_footprint();
  const double compulsory = (fa + fb + fc) * e * batch;
  const double sram = acc.sram_shared_B;
  if (sram > 0 && compulsory <= sram) {
    out.hbm_bytes = 0;  // working set already on chip (left there by the producer, or SRAM-resident)
  } else if (sram <= 0) {
    out.hbm_bytes = out.l2_bytes;  // no shared cache: every tile loads its panels from memory
  } else if (std::min(fa, fb) * e <= kResidentOperandShare * sram) {
    out.hbm_bytes = compulsory;
  } else {
    const double concurrent = std::min(tiles, units);
    double block_m = std::clamp(std::round(std::sqrt(concurrent * Nt / Mt)), 1.0, tiles_m);
    const double block_n = std::min(tiles_n, ceil_div(concurrent, block_m));
    block_m = std::min(tiles_m, ceil_div(concurrent, block_n));
    const double a_share = fa / (m * k), b_share = fb / (k * n), c_share = fc / (m * n);
    const double per_wave =
        ((std::min(block_m * Mt, m) * a_share + std::min(block_n * Nt, n) * b_share) * k +
         concurrent * rows * cols * c_share) *
        e;
    out.hbm_bytes = std::clamp(per_wave / concurrent * tiles, compulsory, std::max(compulsory, out.l2_bytes));
  }
  const double hbm_per_tile = out.hbm_bytes / tiles;

  // A wave of t tiles: the slowest of the tiles' arithmetic (in parallel on t units), the wave's
  // L2 traffic and its HBM traffic.
  const auto timing = time_waves(acc, out.tile_compute_s, l2_per_tile, hbm_per_tile, tiles, waves, units);
  out.time_s = timing.time_s;
  out.bound = timing.bound;
  out.flops_per_s = 2.0 * m * n * k * batch / out.time_s;
  out.efficiency = out.flops_per_s / arithmetic.peak_ops;
  return out;
}

GemmEstimate BlockedGemmModel::fastest_tile(const GemmShape& shape, const GemmArithmetic& arithmetic) const {
  GemmEstimate best;
  bool first = true;
  for (const auto& tile : accelerator_.gemm_tiles) {
    // A library has each tile in both orientations (256x128 and 128x256).
    for (const config::TileShape t : {tile, config::TileShape{tile.n, tile.m}}) {
      const auto e = estimate_tile(shape, arithmetic, t);
      if (first || e.time_s < best.time_s) best = e;  // ties keep the earlier (larger, listed) tile
      first = false;
      if (tile.m == tile.n) break;
    }
  }
  return best;
}

GemmEstimate BlockedGemmModel::estimate(const GemmShape& shape, const GemmArithmetic& arithmetic) const {
  GemmEstimate best = fastest_tile(shape, arithmetic);
  if (!shape.split_k) return best;
  // Split-K: `s` slices of k/s each run as a batch of s GEMMs writing fp32 partial products (each
  // slice reads 1/s of A and B), then one memory-bound kernel reads the s partials and writes C.
  const double units = accelerator_.compute_units;
  for (long long s = 2; s <= shape.k / kMinSplitDepth &&
                        static_cast<double>(s * shape.batch) <= kMaxSplitWaves * units;
       s *= 2) {
    GemmShape part = shape;
    part.k = (shape.k + s - 1) / s;
    part.batch = shape.batch * s;
    part.a_elements = shape.a_footprint() / static_cast<double>(s);
    part.b_elements = shape.b_footprint() / static_cast<double>(s);
    part.c_elements = shape.c_footprint() * kAccumulatorBytes / arithmetic.element_bytes;  // fp32 partials
    part.split_k = false;
    GemmEstimate e = fastest_tile(part, arithmetic);
    const double c = shape.c_footprint() * static_cast<double>(shape.batch);
    e.reduction_s = memory_bound_time(c * (static_cast<double>(s) * kAccumulatorBytes + arithmetic.element_bytes));
    e.time_s += e.reduction_s;
    e.split_k = s;
    if (e.time_s < best.time_s) best = e;
  }
  const double flops = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) *
                       static_cast<double>(shape.k) * static_cast<double>(shape.batch);
  best.flops_per_s = flops / best.time_s;
  best.efficiency = best.flops_per_s / arithmetic.peak_ops;
  return best;
}

GemmEstimate BlockedGemmModel::estimate(const GemmShape& shape, DType dtype) const {
  return estimate(shape, arithmetic_of(dtype));
}

AttentionEstimate BlockedGemmModel::estimate_attention(const AttentionShape& shape, DType dtype) const {
  const GemmArithmetic arithmetic = arithmetic_of(dtype);
  const auto& acc = accelerator_;
  const AttentionTiling tiling = plan_attention_tiling(shape, arithmetic.element_bytes, acc.sram_per_unit_B);
  const double units = acc.compute_units;
  const double tiles = static_cast<double>(tiling.tiles);
  const double waves = ceil_div(tiles, units);

  AttentionEstimate out;
  out.block_rows = tiling.block_rows;
  out.tiles = tiling.tiles;
  out.waves = static_cast<long long>(waves);
  out.wave_efficiency = tiles / (waves * units);
  // Fused attention sustains a share of the GEMM's efficiency: softmax between its products, the
  // online rescaling, and (backward) the dQ accumulation (attention.*_share, fitted per part).
  const double share = acc.attention_share(shape.kernel, shape.backward);
  out.tile_compute_s = tiling.tile_flops / (arithmetic.peak_ops * arithmetic.efficiency * share / units);
  out.l2_bytes = tiling.tile_bytes() * tiles;

  // HBM: the tiles of a wave cover consecutive blocks of few heads (block index fastest, as
  // FlashAttention-2's grid). If what those heads stream fits in L2 it is read from HBM once and
  // the per-block re-reads hit L2: compulsory traffic. Otherwise, or with no L2, every tile loads
  // its streamed operands from HBM.
  const double blocks = static_cast<double>(tiling.blocks_per_head);
  const double heads_in_flight =
      std::min(static_cast<double>(shape.batch_heads), ceil_div(std::min(tiles, units), blocks));
  const double sram = acc.sram_shared_B;
  const bool reuse_in_l2 = sram > 0 && heads_in_flight * tiling.streamed_bytes <= kResidentOperandShare * sram;
  out.hbm_bytes = reuse_in_l2 ? tiling.compulsory_bytes : std::max(tiling.compulsory_bytes, out.l2_bytes);
  const double hbm_per_tile = out.hbm_bytes / tiles;

  const auto timing = time_waves(acc, out.tile_compute_s, tiling.tile_bytes(), hbm_per_tile, tiles, waves, units);
  out.time_s = timing.time_s;
  out.bound = timing.bound;
  out.flops_per_s = attention_flops(shape) / out.time_s;
  out.efficiency = out.flops_per_s / arithmetic.peak_ops;
  return out;
}

GemmEstimate BlockedGemmModel::estimate_grouped(const std::vector<GemmShape>& groups, DType dtype) const {
  const GemmArithmetic arithmetic = arithmetic_of(dtype);
  const auto& acc = accelerator_;
  const double units = acc.compute_units;
  GemmEstimate best;
  best.time_s = acc.launch_overhead_s;  // no group: an empty launch
  bool first = true;
  for (const auto& listed : acc.gemm_tiles) {
    for (const config::TileShape tile : {listed, config::TileShape{listed.n, listed.m}}) {
      // Each group priced alone gives its tiles and their per-tile compute, L2 and HBM; the grouped
      // kernel runs all groups' tiles back to back in waves of `units`.
      struct Tiles {
        double count, compute_s, l2_B, hbm_B;
      };
      std::vector<Tiles> per_group;
      double flops = 0, total_tiles = 0, l2 = 0, hbm = 0;
      for (const auto& g : groups) {
        const auto e = estimate_tile(g, arithmetic, tile);
        const double t = static_cast<double>(e.tiles);
        per_group.push_back({t, e.tile_compute_s, e.l2_bytes / t, e.hbm_bytes / t});
        flops += 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) *
                 static_cast<double>(g.batch);
        total_tiles += t;
        l2 += e.l2_bytes;
        hbm += e.hbm_bytes;
      }
      double time_s = acc.launch_overhead_s + acc.gemm_fixed_s, in_wave = 0, wave_compute = 0, wave_l2 = 0, wave_hbm = 0;
      GemmBound bound = GemmBound::Compute;
      const auto close_wave = [&] {
        if (in_wave == 0) return;
        const double l2_s = acc.sram_shared_bandwidth_Bps > 0 ? wave_l2 / acc.sram_shared_bandwidth_Bps : 0.0;
        const double hbm_s = wave_hbm / acc.achievable_memory_bandwidth_Bps();
        const double wave_s = std::max({wave_compute, l2_s, hbm_s});
        bound = wave_s == wave_compute ? GemmBound::Compute : wave_s == l2_s ? GemmBound::L2 : GemmBound::Hbm;
        time_s += wave_s;
        in_wave = wave_compute = wave_l2 = wave_hbm = 0;
      };
      for (const auto& g : per_group) {
        // Whole waves of one group at once; a wave shared by two groups tile by tile.
        double left = g.count;
        while (left > 0) {
          const double take = std::min(left, units - in_wave);
          in_wave += take;
          wave_compute = std::max(wave_compute, g.compute_s);
          wave_l2 += take * g.l2_B;
          wave_hbm += take * g.hbm_B;
          left -= take;
          if (in_wave == units) {
            const double full_waves = std::floor(left / units);
            if (full_waves > 0) {  // the same wave repeats
              close_wave();
              const double l2_s = acc.sram_shared_bandwidth_Bps > 0 ? units * g.l2_B / acc.sram_shared_bandwidth_Bps : 0.0;
              time_s += full_waves * std::max({g.compute_s, l2_s, units * g.hbm_B / acc.achievable_memory_bandwidth_Bps()});
              left -= full_waves * units;
            } else {
              close_wave();
            }
          }
        }
      }
      close_wave();
      if (first || time_s < best.time_s) {
        best = GemmEstimate{};
        best.time_s = time_s;
        best.flops_per_s = time_s > 0 ? flops / time_s : 0;
        best.efficiency = best.flops_per_s / arithmetic.peak_ops;
        best.bound = bound;
        best.tile = tile;
        best.tiles = static_cast<long long>(total_tiles);
        best.waves = static_cast<long long>(std::ceil(total_tiles / units));
        best.wave_efficiency = total_tiles > 0 ? total_tiles / (static_cast<double>(best.waves) * units) : 0;
        best.l2_bytes = l2;
        best.hbm_bytes = hbm;
      }
      first = false;
      if (listed.m == listed.n) break;
    }
  }
  return best;
}

double BlockedGemmModel::traffic_time(double bytes, double hbm_Bps) const {
  const auto& acc = accelerator_;
  const bool on_chip = acc.sram_shared_bandwidth_Bps > 0 && bytes <= acc.sram_shared_B;
  return bytes / (on_chip ? acc.sram_shared_bandwidth_Bps : hbm_Bps);
}

double BlockedGemmModel::memory_bound_time(double bytes) const {
  return accelerator_.launch_overhead_s + traffic_time(bytes, accelerator_.achievable_memory_bandwidth_Bps());
}

double BlockedGemmModel::in_place_time(double bytes) const {
  return traffic_time(bytes, accelerator_.in_place_memory_bandwidth_Bps());
}

KernelCost BlockedGemmModel::cost(const Kernel& kernel) const {
  if (!accelerator_.supports(kernel.dtype))
    throw Error(fmt::format("BlockedGemmModel: accelerator '{}' has no peak for {} (kernel '{}')", accelerator_.name,
                            dtype_name(kernel.dtype), kernel.name));
  if (kernel.kind == KernelKind::Gemm) {
    const auto e = estimate(kernel.gemm, kernel.dtype);
    return KernelCost{e.time_s, e.bound == GemmBound::Compute ? Bound::Compute : Bound::Memory};
  }
  if (kernel.kind == KernelKind::GroupedGemm) {
    const auto e = estimate_grouped(kernel.groups, kernel.dtype);
    return KernelCost{e.time_s, e.bound == GemmBound::Compute ? Bound::Compute : Bound::Memory};
  }
  if (kernel.kind == KernelKind::FusedAttention) {
    const auto e = estimate_attention(kernel.attention, kernel.dtype);
    return KernelCost{e.time_s, e.bound == GemmBound::Compute ? Bound::Compute : Bound::Memory};
  }
  if (kernel.kind == KernelKind::EmbeddingBag) return embedding_bag_cost(kernel, accelerator_);
  // Memory-bound: the bytes at the level the working set fits in, from HBM at the rate a
  // framework's kernels reach in place; the arithmetic at the dtype's peak only matters for odd
  // dtypes (fp32 ops on a part with a slow fp32 path).
  const double compute_s = kernel.flops / accelerator_.peak(kernel.dtype);
  const double memory_s = traffic_time(kernel.streaming_bytes, accelerator_.achievable_memory_bandwidth_Bps()) +
                          in_place_time(kernel.bytes - kernel.streaming_bytes);
  return KernelCost{accelerator_.launch_overhead_s + std::max(compute_s, memory_s),
                    compute_s > memory_s ? Bound::Compute : Bound::Memory};
}

}  // namespace clearfog::kernels
