#pragma once
// `clearfog compare`: one workload on several platforms, each with the best parallelism found.
//
// For each platform the search enumerates tp x pp x dp = devices over the divisors of the device
// count. A configuration the scenario validator refuses (tp must divide the heads, pp the layers,
// dp x micro-batch the global batch, ...) is counted as invalid; one whose memory estimate exceeds
// the device memory is counted as oom and not simulated. The rest are simulated at the search
// fidelity (fluid by default), every candidate in its own child process, `jobs` at a time. Without
// a fixed micro-batch the search first uses micro-batch 1, then tries larger powers of two for the
// best few layouts. The fastest few are re-simulated at step fidelity and the fastest of those is
// reported.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sweep/CompareFile.hpp"
#include "sweep/StepBound.hpp"

namespace clearfog::sweep {

struct PlatformResult {
  std::filesystem::path platform_file;
  std::string platform;              // name from the file
  int devices = 0;
  double power_W = 0;                // accelerator power.peak x devices; 0 = unknown
  double sram_B = 0;                 // on-chip memory per device (accelerator sram.shared)
  double sram_Bps = 0;               // its bandwidth; 0 = not modelled
  double dram_Bps = 0;               // device (off-chip) memory bandwidth
  int global_batch = 0;

  int considered = 0;                // configurations enumerated
  int invalid = 0;                   // refused by the scenario validator
  int oom = 0;                       // memory estimate above the device memory: not simulated
  int simulated = 0;                 // at the search fidelity (the step-fidelity re-run not counted)
  int failed = 0;                    // simulations that ended in an error
  std::string invalid_example;       // one validator message
  std::string failure;               // the first simulation error

  /// Among the oom configurations, the one needing the least memory: parallelism and memory
  /// breakdown (what it would take to fit). Null when some configuration fits or none was oom.
  nlohmann::ordered_json least_memory;

  /// Every configuration considered, in the order tried: tp, pp, dp, micro_batch, status (ok,
  /// oom, invalid, error), the memory estimate's breakdown (ok, oom), the step time at the search
  /// fidelity (ok) or the message (invalid, error).
  std::vector<nlohmann::ordered_json> configurations;

  nlohmann::ordered_json best;       // summary JSON of the chosen configuration, null if none
  StepBreakdown best_breakdown;
  std::string fidelity;              // of `best`
  double search_step_s = 0;          // the chosen configuration's step time at the search fidelity
};

std::vector<PlatformResult> compare_platforms(const CompareRequest& request);

}  // namespace clearfog::sweep
