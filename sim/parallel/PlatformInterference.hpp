#pragma once
// The plan's compute-communication interference, from the platform's collectives.interference
// (docs/frameworks.md, "Compute-communication interference"). Every planner takes it from here.
#include "config/PlatformSpec.hpp"
#include "program/Program.hpp"

namespace clearfog::parallel {

[[nodiscard]] inline program::Interference platform_interference(const config::PlatformSpec& platform) {
  return {.compute = platform.collectives.compute_slowdown(platform.accelerator.compute_units),
          .collective = platform.collectives.collective_slowdown()};
}

}  // namespace clearfog::parallel
