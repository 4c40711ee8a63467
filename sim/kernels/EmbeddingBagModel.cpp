// Embedding-bag kernels priced from memory traffic (docs/dlrm.md, "Embedding kernels").
#include "kernels/EmbeddingBagModel.hpp"

#include <algorithm>
#include <cmath>

namespace clearfog::kernels {

namespace {

constexpr double kExactTerms = 1000;  // harmonic(): terms summed one by one before the integral
constexpr int kRankBuckets = 400;     // expected_distinct_rows(): geometric buckets of Zipf ranks

/// sum_{k=a..b-1} k^-s: term by term for short runs, else the midpoint integral.
double partial_harmonic(double a, double b, double s) {
  if (b - a <= kExactTerms / 16) {
    double h = 0;
    for (double k = a; k < b; ++k) h += std::pow(k, -s);
    return h;
  }
  const double lo = a - 0.5, hi = b - 0.5;
  return std::abs(s - 1) < 1e-12 ? std::log(hi / lo) : (std::pow(hi, 1 - s) - std::pow(lo, 1 - s)) / (1 - s);
}

}  // namespace

double harmonic(double n, double s) {
  if (!(n > 0)) return 0;
  const double whole = std::floor(n);
  const double exact = std::min(whole, kExactTerms);
  double h = 0;
  for (double k = 1; k <= exact; ++k) h += std::pow(k, -s);
  if (whole <= kExactTerms) return h + (n - whole) * std::pow(whole + 1, -s);
  // Euler-Maclaurin: sum_{k=a+1..n} k^-s ~ integral from a + 1/2 to n + 1/2 of x^-s dx.
  const double lo = exact + 0.5, hi = n + 0.5;
  return h + (std::abs(s - 1) < 1e-12 ? std::log(hi / lo) : (std::pow(hi, 1 - s) - std::pow(lo, 1 - s)) / (1 - s));
}

double cache_hit_rate(const IndexDistribution& d, double rows, double cache_rows) {
  if (!(rows > 0) || !(cache_rows > 0)) return d.kind == IndexKind::HitRate ? d.hit_rate : 0.0;
  switch (d.kind) {
    case IndexKind::Uniform: return std::min(1.0, cache_rows / rows);
    case IndexKind::Zipf: return cache_rows >= rows ? 1.0 : harmonic(cache_rows, d.zipf_s) / harmonic(rows, d.zipf_s);
    case IndexKind::HitRate: return d.hit_rate;
  }
  return 0;
}

double expected_distinct_rows(const IndexDistribution& d, double rows, double draws) {
  if (!(rows > 0) || !(draws > 0)) return 0;
  const auto untouched = [draws](double p) { return std::exp(draws * std::log1p(-std::min(p, 1.0 - 1e-15))); };
  if (d.kind != IndexKind::Zipf) return rows * (1 - untouched(1 / rows));
  // Ranks in geometric buckets [a, b): each row of a bucket taken at the bucket's mean probability.
  const double h_n = harmonic(rows, d.zipf_s);
  const double ratio = std::pow(rows + 1, 1.0 / kRankBuckets);
  double distinct = 0, a = 1;
  while (a <= rows) {
    const double b = std::min(rows + 1, std::max(a + 1, std::floor(a * ratio)));
    const double count = b - a;
    distinct += count * (1 - untouched(partial_harmonic(a, b, d.zipf_s) / (count * h_n)));
    a = b;
  }
  return distinct;
}

namespace {

/// Bytes a scattered access of `access_B` to rows of `row_B` moves: each row rounded up to whole
/// units of the memory's access granularity (none when it is 0).
double moved_B(double access_B, double row_B, double granularity_B) {
  if (!(granularity_B > 0) || !(row_B > 0)) return access_B;
  return access_B * std::ceil(row_B / granularity_B) * granularity_B / row_B;
}

}  // namespace

KernelCost embedding_bag_cost(const Kernel& kernel, const config::AcceleratorSpec& acc) {
  const double streaming_Bps = acc.achievable_memory_bandwidth_Bps();
  const double random_Bps = acc.memory_bandwidth_Bps * acc.random_access_efficiency;
  const double cache_Bps = acc.sram_shared_bandwidth_Bps > 0 ? acc.sram_shared_bandwidth_Bps : streaming_Bps;
  double random_B = 0, touched_B = 0;
  for (const auto& t : kernel.tables) {
    random_B += t.accesses * t.access_B;
    touched_B += t.accesses * t.row_B;
  }
  double memory_s = std::max(0.0, kernel.bytes - random_B) / streaming_Bps;
  for (const auto& t : kernel.tables) {
    const double share_B = touched_B > 0 ? acc.sram_shared_B * t.accesses * t.row_B / touched_B : 0.0;
    const double h = acc.sram_shared_bandwidth_Bps > 0 || t.distribution.kind == IndexKind::HitRate
                         ? cache_hit_rate(t.distribution, t.rows, share_B / t.row_B)
                         : 0.0;
    memory_s += t.accesses * moved_B(t.access_B, t.row_B, acc.access_granularity_B) *
                ((1 - h) / random_Bps + h / cache_Bps);
  }
  const double compute_s = kernel.flops / acc.peak(kernel.dtype);
  return KernelCost{acc.launch_overhead_s + std::max(compute_s, memory_s),
                    compute_s > memory_s ? Bound::Compute : Bound::Memory};
}

}  // namespace clearfog::kernels
