#pragma once
// Devices that compute slower than the others (`stragglers:` in a scenario): fixed factors for
// named devices and a seeded log-normal spread over all of them (docs/stragglers.md).
#include <cstdint>
#include <vector>

namespace clearfog::config {

struct StragglerDevice {
  int device = 0;
  double slowdown = 1;  // every compute op of the device lasts this many times its priced duration
};

struct StragglerSpec {
  std::vector<StragglerDevice> devices;  // fixed factors; they replace the drawn one of their device
  double sigma = 0;                      // spread of ln(factor) over every device; 0: none
  std::uint64_t seed = 0;

  [[nodiscard]] bool any() const { return !devices.empty() || sigma > 0; }
};

/// Limits the checks enforce: a slowdown beyond them is a typo, not a straggler.
constexpr double kMaxSlowdown = 100;
constexpr double kMinSlowdown = 0.01;
constexpr double kMaxStragglerSigma = 1;

}  // namespace clearfog::config
