#pragma once
// What is checked of a sweep before its first point runs: every axis key and value, and every `set`
// value, against the base scenario (type, unit, range, known key, readable file), each on its own.
// Problems only a combination of values has (dp*tp*pp against the devices) are left to the points.
#include "sweep/SweepSpec.hpp"

namespace clearfog::sweep {

/// Throws ConfigError located at the values in the sweep file (the base scenario's own problems at
/// their place in the base).
void check_sweep_values(const SweepSpec& spec);

}  // namespace clearfog::sweep
