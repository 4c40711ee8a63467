// The blocked-GEMM model: wave and tile quantization, the memory -> compute transition at the
// ridge point, the tile a library heuristic picks, and memory-bound kernels per memory level.
// Expected values are the closed forms of docs/compute-model.md, written out in each test.
#include <catch2/catch.hpp>

#include <cmath>

#include "config/AcceleratorSpec.hpp"
#include "core/Errors.hpp"
#include "kernels/BlockedGemmModel.hpp"

using namespace clearfog;
using clearfog::kernels::BlockedGemmModel;
using clearfog::kernels::GemmBound;
using clearfog::kernels::GemmShape;

namespace {

// 4 units of 1 TFLOP/s each in bf16, one 64x64 tile, sustained peak = datasheet peak, no launch
// overhead, no L2 model: every tile loads its panels from memory at `bandwidth_Bps`.
constexpr int kUnits = 4;
constexpr double kPeak = 4e12;
constexpr int kTile = 64;

config::AcceleratorSpec four_units(double bandwidth_Bps) {
  config::AcceleratorSpec a;
  a.name = "four units";
  a.compute_units = kUnits;
  a.clock_Hz = 1e9;
  a.peak_flops = {{DType::bf16, kPeak}};
  a.memory_capacity_B = 1e12;
  a.memory_bandwidth_Bps = bandwidth_Bps;
  a.gemm_tiles = {{kTile, kTile}};
  return a;
}
constexpr double kUnlimited = 1e30;  // B/s: memory never limits

// One 64x64 tile over depth k at one unit's rate.
double tile_seconds(long long k) { return 2.0 * kTile * kTile * static_cast<double>(k) / (kPeak / kUnits); }

}  // namespace

TEST_CASE("kernels::BlockedGemm: one tile more than the units doubles the time (wave quantization)", "[kernels]") {
  const BlockedGemmModel model(four_units(kUnlimited));
  const long long k = 512;
  const auto one_wave = model.estimate(GemmShape{kUnits * kTile, kTile, k, 1}, DType::bf16);   // 4 tiles
  const auto two_waves = model.estimate(GemmShape{(kUnits + 1) * kTile, kTile, k, 1}, DType::bf16);  // 5 tiles
  CHECK(one_wave.tiles == kUnits);
  CHECK(one_wave.waves == 1);
  CHECK(one_wave.wave_efficiency == 1.0);
  CHECK(one_wave.bound == GemmBound::Compute);
  CHECK(one_wave.time_s == Approx(tile_seconds(k)));
  CHECK(two_waves.tiles == kUnits + 1);
  CHECK(two_waves.waves == 2);
  CHECK(two_waves.wave_efficiency == Approx((kUnits + 1.0) / (2 * kUnits)));
  CHECK(two_waves.time_s == Approx(2 * tile_seconds(k)));
  // A batch of identical GEMMs fills waves the same way.
  const auto batched = model.estimate(GemmShape{kTile, kTile, k, 2 * kUnits}, DType::bf16);
  CHECK(batched.waves == 2);
  CHECK(batched.time_s == Approx(2 * tile_seconds(k)));
}

TEST_CASE("kernels::BlockedGemm: M = Mt + 1 computes a second, mostly empty tile (tile quantization)", "[kernels]") {
  const BlockedGemmModel model(four_units(kUnlimited));
  const long long k = 256;
  const auto exact = model.estimate(GemmShape{kTile, kTile, k, 1}, DType::bf16);
  const auto plus_one = model.estimate(GemmShape{kTile + 1, kTile, k, 1}, DType::bf16);
  CHECK(exact.tiles == 1);
  CHECK(exact.tile_efficiency == 1.0);
  CHECK(plus_one.tiles == 2);
  CHECK(plus_one.tile_efficiency == Approx((kTile + 1.0) / (2 * kTile)));
  // Both fit in one wave: the same time for one more row, so throughput steps down.
  CHECK(plus_one.time_s == Approx(exact.time_s));
  CHECK(plus_one.flops_per_s == Approx(exact.flops_per_s * (kTile + 1.0) / kTile));
  // One unit: the padded tile costs a full tile time.
  auto single = four_units(kUnlimited);
  single.compute_units = 1;
  single.peak_flops = {{DType::bf16, kPeak / kUnits}};
  const BlockedGemmModel one_unit(single);
  CHECK(one_unit.estimate(GemmShape{kTile + 1, kTile, k, 1}, DType::bf16).time_s ==
        Approx(2 * one_unit.estimate(GemmShape{kTile, kTile, k, 1}, DType::bf16).time_s));
}

TEST_CASE("kernels::BlockedGemm: a K sweep turns from memory- to compute-bound at the ridge point", "[kernels]") {
  // No L2: a wave of 4 tiles loads 4 ((Mt + Nt) k + Mt Nt) e bytes while the 4 units compute
  // 4 * 2 Mt Nt k FLOP at the full peak. With Mt = Nt = T the two are equal at
  // k* = T^2 e / bw / (2 T^2 / peak - 2 T e / bw), the ridge point of the tile's intensity.
  const double bandwidth = 3e11;
  const double e = dtype_bytes(DType::bf16);
  const BlockedGemmModel model(four_units(bandwidth));
  const double T = kTile;
  const double ridge_k = T * T * e / bandwidth / (2 * T * T / kPeak - 2 * T * e / bandwidth);
  REQUIRE(ridge_k > 16);
  REQUIRE(ridge_k < 1024);
  for (long long k = 16; k <= 1024; k *= 2) {
    INFO("k = " << k << ", ridge k* = " << ridge_k);
    const auto est = model.estimate(GemmShape{kUnits * kTile, kTile, k, 1}, DType::bf16);
    const double memory_s = kUnits * ((2 * T) * static_cast<double>(k) + T * T) * e / bandwidth;
    if (static_cast<double>(k) < ridge_k) {
      CHECK(est.bound == GemmBound::Hbm);
      CHECK(est.time_s == Approx(memory_s));
    } else {
      CHECK(est.bound == GemmBound::Compute);
      CHECK(est.time_s == Approx(tile_seconds(k)));
    }
  }
}

TEST_CASE("kernels::BlockedGemm: picks the fastest tile, in either orientation", "[kernels]") {
  auto acc = four_units(kUnlimited);
  acc.gemm_tiles = {{128, 128}, {128, 64}};
  const BlockedGemmModel model(acc);
  SECTION("a 128x128 GEMM: two 128x64 tiles (one wave) beat one 128x128 tile") {
    // 128x128: 1 tile, time 2*128*128*k/rate; 128x64: 2 tiles, one wave, half the time.
    const auto est = model.estimate(GemmShape{128, 128, 256, 1}, DType::bf16);
    CHECK(est.tile.m * est.tile.n == 128 * 64);
    CHECK(est.time_s == Approx(2.0 * 128 * 64 * 256 / (kPeak / kUnits)));
  }
  SECTION("a batch of 64x128 GEMMs fits the 64x128 orientation: one wave, no padding") {
    // 128x64 would need 2 padded tiles per GEMM, 8 tiles in 2 waves; 64x128 needs 4 in one.
    const auto est = model.estimate(GemmShape{64, 128, 256, kUnits}, DType::bf16);
    CHECK(est.tile == config::TileShape{64, 128});
    CHECK(est.tile_efficiency == 1.0);
  }
  SECTION("a large GEMM: the large tile (fewer re-reads, same compute) wins ties") {
    const auto est = model.estimate(GemmShape{4096, 4096, 256, 1}, DType::bf16);
    CHECK(est.tile == config::TileShape{128, 128});
  }
}

TEST_CASE("kernels::BlockedGemm: L2 re-reads and HBM reuse follow the L2 capacity", "[kernels]") {
  auto acc = four_units(1e12);
  acc.sram_shared_B = 1e6;
  acc.sram_shared_bandwidth_Bps = 1e13;
  const BlockedGemmModel model(acc);
  const double e = dtype_bytes(DType::bf16);
  SECTION("working set on chip: no HBM traffic") {
    const auto est = model.estimate(GemmShape{128, 128, 128, 1}, DType::bf16);
    CHECK(est.hbm_bytes == 0.0);
    // 4 tiles, each reading (64 + 64) x 128 operands and writing 64 x 64 results through L2.
    CHECK(est.l2_bytes == Approx(4 * ((64.0 + 64.0) * 128 + 64.0 * 64) * e));
  }
  SECTION("one operand fits in half the L2: compulsory traffic") {
    const long long m = 4096, n = 64, k = 2048;  // B = 256 KiB fits, A = 16 MiB does not
    const auto est = model.estimate(GemmShape{m, n, k, 1}, DType::bf16);
    CHECK(est.hbm_bytes == Approx(static_cast<double>(m * k + k * n + m * n) * e));
  }
}

TEST_CASE("kernels::BlockedGemm: operands smaller than their matrix move their footprint (implicit GEMM)",
          "[kernels]") {
  // An implicit-GEMM 3x3 convolution multiplies a 9x larger im2col view of its input: with B
  // resident in L2 the HBM traffic is the compulsory footprint, A's being 1/9 of m*k.
  auto acc = four_units(1e12);
  acc.sram_shared_B = 1e6;
  acc.sram_shared_bandwidth_Bps = 1e13;
  const BlockedGemmModel model(acc);
  const double e = dtype_bytes(DType::bf16);
  const long long m = 4096, n = 64, k = 9 * 64;
  GemmShape conv{m, n, k, 1};
  conv.a_elements = static_cast<double>(m) * 64;  // the image: 64 channels per output pixel
  const auto dense = model.estimate(GemmShape{m, n, k, 1}, DType::bf16);
  const auto implicit = model.estimate(conv, DType::bf16);
  CHECK(dense.hbm_bytes == Approx(static_cast<double>(m * k + k * n + m * n) * e));
  CHECK(implicit.hbm_bytes == Approx((static_cast<double>(m) * 64 + static_cast<double>(k * n + m * n)) * e));
  // L2 still serves every tile its whole im2col panel.
  CHECK(implicit.l2_bytes == Approx(dense.l2_bytes));
  const auto kernel = kernels::Kernel::make_gemm("conv", conv, DType::bf16);
  CHECK(kernel.bytes == Approx(implicit.hbm_bytes));
  CHECK(kernel.flops == 2.0 * m * n * k);
}

TEST_CASE("kernels::BlockedGemm: split-K fills idle units with slices of k and sums them after", "[kernels]") {
  // One 64x64 output tile over a long k keeps one of four units busy. Split in s slices, s
  // tiles of k/s run in ceil(s/4) waves, then a memory-bound kernel reads s fp32 partials and
  // writes C: at unlimited bandwidth (no launch overhead) the sum is free and s = 4 is fastest
  // (s = 8 takes two waves of k/8: the same time, and ties keep the fewer slices).
  const BlockedGemmModel model(four_units(kUnlimited));
  const long long k = 1 << 16;
  GemmShape wgrad{kTile, kTile, k, 1};
  const auto whole = model.estimate(wgrad, DType::bf16);
  CHECK(whole.split_k == 1);
  CHECK(whole.time_s == Approx(tile_seconds(k)));
  wgrad.split_k = true;
  const auto split = model.estimate(wgrad, DType::bf16);
  CHECK(split.split_k == kUnits);
  CHECK(split.time_s == Approx(tile_seconds(k / kUnits)));
  CHECK(split.flops_per_s == Approx(2.0 * kTile * kTile * k / split.time_s));
  SECTION("the sum of the slices is priced as a memory-bound kernel") {
    auto acc = four_units(1e11);
    acc.launch_overhead_s = 3e-6;
    const BlockedGemmModel slow(acc);
    const auto est = slow.estimate(wgrad, DType::bf16);
    REQUIRE(est.split_k > 1);
    const double c = static_cast<double>(kTile) * kTile;
    const double sum_bytes = c * (4.0 * static_cast<double>(est.split_k) + dtype_bytes(DType::bf16));
    CHECK(est.reduction_s == Approx(3e-6 + sum_bytes / 1e11));
    CHECK(est.time_s < slow.estimate(GemmShape{kTile, kTile, k, 1}, DType::bf16).time_s);
  }
}

TEST_CASE("kernels::BlockedGemm: memory-bound kernels run at the level their bytes fit in", "[kernels]") {
  auto acc = four_units(1e12);
  acc.sram_shared_B = 1e6;
  acc.sram_shared_bandwidth_Bps = 1e13;
  acc.launch_overhead_s = 5e-6;
  const BlockedGemmModel model(acc);
  CHECK(model.memory_bound_time(1e6) == Approx(5e-6 + 1e6 / 1e13));  // fits: L2
  CHECK(model.memory_bound_time(2e6) == Approx(5e-6 + 2e6 / 1e12));  // does not: HBM
  const auto softmax = kernels::Kernel::make_memory_bound("softmax", 4e6, 1e6, DType::bf16);
  const auto cost = model.cost(softmax);
  CHECK(cost.bound == kernels::Bound::Memory);
  CHECK(cost.time_s == Approx(5e-6 + 4e6 / 1e12));
  const auto gemm = kernels::Kernel::make_gemm("g", GemmShape{64, 64, 64, 1}, DType::bf16);
  CHECK(model.cost(gemm).time_s == Approx(model.estimate(gemm.gemm, DType::bf16).time_s));
  CHECK(model.estimate(gemm.gemm, DType::bf16).time_s == Approx(5e-6 + tile_seconds(64)));
}

TEST_CASE("kernels::BlockedGemm: rejects unusable accelerators and dtypes", "[kernels]") {
  const BlockedGemmModel model(four_units(1e12));
  CHECK_THROWS_AS(model.estimate(GemmShape{64, 64, 64, 1}, DType::fp8), Error);
  CHECK_THROWS_AS(model.cost(kernels::Kernel::make_memory_bound("x", 1, 1, DType::fp32)), Error);
  SECTION("no tiles") {
    auto acc = four_units(1e12);
    acc.gemm_tiles.clear();
    CHECK_THROWS_AS(BlockedGemmModel(acc), Error);
  }
  SECTION("efficiency above 1") {
    auto acc = four_units(1e12);
    acc.gemm_efficiency = 1.5;
    CHECK_THROWS_AS(BlockedGemmModel(acc), Error);
  }
  SECTION("no memory bandwidth") {
    CHECK_THROWS_AS(BlockedGemmModel(four_units(0)), Error);
  }
}
