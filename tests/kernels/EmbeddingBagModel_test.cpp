// Embedding-bag kernels priced from memory traffic (docs/dlrm.md, "Embedding kernels"): the cache
// hit rate of each index law in closed form, the expected distinct rows, and the time as streamed
// bytes at the streaming rate plus random rows at the random-access rate or the L2's.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/BlockedGemmModel.hpp"
#include "kernels/EmbeddingBagModel.hpp"

using namespace clearfog;
using kernels::EmbeddingAccess;
using kernels::IndexDistribution;
using kernels::IndexKind;

namespace {

constexpr double kBandwidth = 1e12, kStreaming = 0.8, kRandom = 0.25, kL2 = 4e12, kL2Bytes = 1e6;

config::AcceleratorSpec accelerator(double l2_Bps) {
  config::AcceleratorSpec a;
  a.name = "test";
  a.compute_units = 4;
  a.clock_Hz = 1e9;
  a.peak_flops = {{DType::fp32, 1e15}};
  a.memory_bandwidth_Bps = kBandwidth;
  a.memory_efficiency = kStreaming;
  a.random_access_efficiency = kRandom;
  a.sram_shared_B = kL2Bytes;
  a.sram_shared_bandwidth_Bps = l2_Bps;
  return a;
}

}  // namespace

TEST_CASE("kernels::harmonic: exact sums and the Euler-Maclaurin tail", "[kernels][dlrm]") {
  CHECK(kernels::harmonic(10, 1) == Approx(7381.0 / 2520.0));          // H_10
  CHECK(kernels::harmonic(4, 2) == Approx(1 + 0.25 + 1.0 / 9 + 1.0 / 16));
  // Beyond the exact terms: H_n ~ ln n + gamma + 1/(2n) for s = 1.
  const double n = 1e7;
  CHECK(kernels::harmonic(n, 1) == Approx(std::log(n) + 0.5772156649 + 0.5 / n).epsilon(1e-6));
}

TEST_CASE("kernels::cache_hit_rate: uniform C/N, Zipf H(C)/H(N), a given rate as is", "[kernels][dlrm]") {
  CHECK(kernels::cache_hit_rate({IndexKind::Uniform}, 1000, 250) == Approx(0.25));
  CHECK(kernels::cache_hit_rate({IndexKind::Uniform}, 1000, 5000) == 1.0);
  const IndexDistribution zipf{IndexKind::Zipf, 1.0, 0};
  CHECK(kernels::cache_hit_rate(zipf, 10, 4) == Approx((1 + 0.5 + 1.0 / 3 + 0.25) / (7381.0 / 2520.0)));
  CHECK(kernels::cache_hit_rate({IndexKind::HitRate, 0, 0.4}, 1e9, 10) == 0.4);
}

TEST_CASE("kernels::expected_distinct_rows: N(1 - (1 - 1/N)^n) — Zipf touches fewer", "[kernels][dlrm]") {
  const double rows = 1e5, draws = 2e5;
  CHECK(kernels::expected_distinct_rows({IndexKind::Uniform}, rows, draws) ==
        Approx(rows * (1 - std::pow(1 - 1 / rows, draws))));
  // Zipf over few rows, summed exactly: sum_k 1 - (1 - p_k)^n with p_k = k^-s / H(N, s).
  const IndexDistribution zipf{IndexKind::Zipf, 1.2, 0};
  double exact = 0;
  const double h = kernels::harmonic(50, 1.2);
  for (int k = 1; k <= 50; ++k) exact += 1 - std::pow(1 - std::pow(k, -1.2) / h, 30);
  CHECK(kernels::expected_distinct_rows(zipf, 50, 30) == Approx(exact).epsilon(1e-3));
  CHECK(kernels::expected_distinct_rows(zipf, rows, draws) < kernels::expected_distinct_rows({IndexKind::Uniform}, rows, draws));
}

TEST_CASE("kernels::embedding_bag_cost: streamed bytes, random rows missing and hitting the L2", "[kernels][dlrm]") {
  const double streamed = 3e6, lookups = 1e6, row_B = 512;
  SECTION("a table far larger than the L2: every row at the random-access rate") {
    const double rows = 1e12;  // the L2's share holds a negligible part
    const auto k = kernels::Kernel::make_embedding_bag("tbe", {{lookups, row_B, rows, row_B, {}}}, streamed, 0, DType::fp32);
    const double hit = kL2Bytes / row_B / rows;
    const double expected = streamed / (kBandwidth * kStreaming) +
                            lookups * row_B * ((1 - hit) / (kBandwidth * kRandom) + hit / kL2);
    CHECK(kernels::embedding_bag_cost(k, accelerator(kL2)).time_s == Approx(expected));
    CHECK(k.bytes == Approx(streamed + lookups * row_B));
  }
  SECTION("a table that fits in the L2: every row at the L2's rate") {
    const auto k = kernels::Kernel::make_embedding_bag("tbe", {{lookups, row_B, 100, row_B, {}}}, streamed, 0, DType::fp32);
    CHECK(kernels::embedding_bag_cost(k, accelerator(kL2)).time_s ==
          Approx(streamed / (kBandwidth * kStreaming) + lookups * row_B / kL2));
  }
  SECTION("two tables share the L2 in proportion to the row bytes they touch") {
    const double rows = 4000;  // each table's half of the L2 holds 1e6 / 2 / 512 rows of its 4000
    const auto k = kernels::Kernel::make_embedding_bag(
        "tbe", {{lookups, row_B, rows, row_B, {}}, {lookups, row_B, rows, row_B, {}}}, 0, 0, DType::fp32);
    const double hit = kL2Bytes / 2 / row_B / rows;
    CHECK(kernels::embedding_bag_cost(k, accelerator(kL2)).time_s ==
          Approx(2 * lookups * row_B * ((1 - hit) / (kBandwidth * kRandom) + hit / kL2)));
  }
  SECTION("no L2 modelled: no hits, and the blocked-GEMM model prices it the same way") {
    const auto k = kernels::Kernel::make_embedding_bag("tbe", {{lookups, row_B, 100, row_B, {}}}, streamed, 0, DType::fp32);
    const double expected = streamed / (kBandwidth * kStreaming) + lookups * row_B / (kBandwidth * kRandom);
    CHECK(kernels::embedding_bag_cost(k, accelerator(0)).time_s == Approx(expected));
    CHECK(kernels::BlockedGemmModel(accelerator(0)).cost(k).time_s == Approx(expected));
  }
}

TEST_CASE("kernels::embedding_bag_cost: rows narrower than the access granularity cost whole units",
          "[kernels][dlrm]") {
  // 32-byte sectors: a 16-byte row moves 32 bytes, a 48-byte row 64, a 64-byte row 64; reads and
  // writes of a row (access 2 x row) double that. No L2: every access at the random-access rate.
  auto acc = accelerator(0);
  acc.access_granularity_B = 32;
  const double lookups = 1e6, random_Bps = kBandwidth * kRandom;
  const auto cost = [&](double row_B, double access_B) {
    const auto k =
        kernels::Kernel::make_embedding_bag("tbe", {{lookups, access_B, 1e9, row_B, {}}}, 0, 0, DType::fp32);
    return kernels::embedding_bag_cost(k, acc).time_s;
  };
  CHECK(cost(16, 16) == Approx(lookups * 32 / random_Bps));
  CHECK(cost(48, 48) == Approx(lookups * 64 / random_Bps));
  CHECK(cost(64, 64) == Approx(lookups * 64 / random_Bps));
  CHECK(cost(16, 32) == Approx(lookups * 64 / random_Bps));
  acc.access_granularity_B = 0;  // absent: any size
  CHECK(cost(16, 16) == Approx(lookups * 16 / random_Bps));
}
