#include "parallel/Stragglers.hpp"

#include <cmath>
#include <cstdint>
#include <numbers>

namespace clearfog::parallel {
namespace {

/// SplitMix64 (Steele, Lea, Flood 2014): fully specified, unlike std::normal_distribution, so a
/// seed draws the same factors everywhere.
class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in (0, 1]: 53 random bits, never 0 (the logarithm below needs it).
  double uniform() { return (static_cast<double>(next() >> 11) + 1.0) / 9007199254740992.0; }

private:
  std::uint64_t state_;
};

/// Box-Muller: one standard normal per call (the second of each pair is dropped for simplicity).
double standard_normal(SplitMix64& rng) {
  const double u1 = rng.uniform(), u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace

std::vector<double> straggler_factors(const config::StragglerSpec& spec, int devices) {
  std::vector<double> factors(static_cast<std::size_t>(std::max(devices, 0)), 1.0);
  if (spec.sigma > 0) {
    SplitMix64 rng(spec.seed);
    for (double& f : factors) f = std::exp(spec.sigma * standard_normal(rng));
  }
  for (const auto& d : spec.devices)
    if (d.device >= 0 && d.device < devices) factors[static_cast<std::size_t>(d.device)] = d.slowdown;
  return factors;
}

void slow_down_compute(program::Plan& plan, const std::vector<double>& factors) {
  const int ranks = std::min(plan.rank_count(), static_cast<int>(factors.size()));
  for (int r = 0; r < ranks; ++r)
    if (factors[static_cast<std::size_t>(r)] != 1.0) plan.ranks[r].scale_compute(factors[static_cast<std::size_t>(r)]);
}

}  // namespace clearfog::parallel
