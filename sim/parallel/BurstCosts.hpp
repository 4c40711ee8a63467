#pragma once
// The burst planner's inputs for a scenario: every block of its workload priced at each width's
// local batch (global batch / width samples per device, the blocked-GEMM model), its gradient,
// its output activation and its optimizer step; and a single-device background job likewise.
// docs/burst-parallelism.md.
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "parallel/BurstPlanner.hpp"
#include "parallel/BurstProgram.hpp"
#include "program/Program.hpp"

namespace clearfog::parallel {

struct BurstCosting {
  BurstProblem problem;
  std::vector<double> optimizer_s;  // per layer (block), on one device
  program::Interference interference;  // the platform's (parallel/PlatformInterference.hpp)
};

/// `widths`: ascending, the first 1, each dividing the scenario's training.global_batch. The
/// planner's network: the platform's node link for groups inside the first node, its NIC beyond.
BurstCosting burst_costs(const config::ScenarioSpec& scenario, const std::vector<int>& widths,
                         double amplification_limit);

/// `workload` trained alone on one device of `scenario`'s platform at `batch` samples per iteration.
BackgroundJob background_job(const config::ScenarioSpec& scenario, const config::WorkloadSpec& workload, int batch);

}  // namespace clearfog::parallel
