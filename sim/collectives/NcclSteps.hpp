#pragma once
// NCCL 2.18.5, src/init.cc: buffers of 8 steps (NCCL_STEPS) per protocol: Simple 4 MiB, LL
// 8 lines x 512 threads x 16 B (half of it flags), LL128 120 words x 640 threads x 8 B (15 of 16
// words data). One step of payload is what a channel pipelines at a time; the algorithms size
// their chunks from these (Tree.cpp, InSwitch.cpp, NvlsTree.cpp, Ring.cpp).
#include "config/CollectiveSpec.hpp"

namespace clearfog::collectives {

inline constexpr int kNcclSteps = 8;  // NCCL_STEPS: buffer slots of a connection
inline constexpr double kSimpleStep_B = 4.0 * 1024 * 1024 / 8;
inline constexpr double kLLStep_B = 8.0 * 512 * 16 / 2;
inline constexpr double kLL128StepWire_B = 120.0 * 640 * 8;
inline constexpr double kLL128Step_B = kLL128StepWire_B * 15 / 16;

/// One step of payload of protocol `p`.
constexpr double step_B(config::Protocol p) {
  return p == config::Protocol::LL ? kLLStep_B : p == config::Protocol::LL128 ? kLL128Step_B : kSimpleStep_B;
}

}  // namespace clearfog::collectives
