#pragma once
// The value a sweep point gives one of its axes, for validation tests that run a sweep's points.
#include <catch2/catch.hpp>

#include <string>

#include "sweep/SweepSpec.hpp"

namespace clearfog::test {

/// The point's value of axis `key`; fails the test when the point has no such axis.
inline std::string sweep_axis(const sweep::SweepPoint& point, const std::string& key) {
  for (const auto& [k, v] : point.axes)
    if (k == key) return v;
  FAIL("sweep point without " << key);
  return {};
}

}  // namespace clearfog::test
