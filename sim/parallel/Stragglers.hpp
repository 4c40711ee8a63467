#pragma once
// Stragglers: per-device compute slowdown factors (fixed, or drawn log-normal with a seed) and
// their application to a planned step (docs/stragglers.md).
#include <vector>

#include "config/StragglerSpec.hpp"
#include "program/Program.hpp"

namespace clearfog::parallel {

/// One factor per device: exp(sigma * z_d) with z_d standard normal from a SplitMix64 stream of
/// `seed` (the same on every machine and standard library), then the fixed factors of
/// `spec.devices` in place of the drawn ones. All 1 when the spec has none.
std::vector<double> straggler_factors(const config::StragglerSpec& spec, int devices);

/// Multiplies the duration of every compute op of rank d by factors[d] (ranks beyond the factors,
/// such as a reducing switch's endpoint, keep theirs). Exchanges are left alone.
void slow_down_compute(program::Plan& plan, const std::vector<double>& factors);

}  // namespace clearfog::parallel
