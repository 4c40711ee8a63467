#pragma once
// `clearfog compare`: one workload on several platforms, each with the best configuration found.
//
// For each platform the search enumerates tp x pp x dp = devices over the divisors of the device
// count, and for each configuration the training knobs of SearchSpace.hpp: the memory knobs (ZeRO
// stage, recomputation) as the cheapest combination whose memory estimate fits in the device
// memory less the headroom, the speed knobs (sequence parallelism, attention kind, precision,
// micro-batch) varied around the best few layouts. A configuration the scenario validator refuses
// is counted as invalid; one whose memory estimate exceeds the device memory with every memory
// knob is counted as oom and not simulated. The rest are simulated at the search fidelity (fluid by
// default), every candidate in its own child process, `jobs` at a time:
//   1. every layout at micro-batch 1 (or the fixed one) with the first value of each speed knob;
//   2. for the best few layouts, each speed knob's other values, one at a time (micro-batches 2, 4,
//      ... 16 without a fixed one);
//   3. for each of those layouts, the best value of every speed knob together.
// The fastest few are re-simulated at step fidelity and the fastest of those is reported, with the
// runner-up it was chosen over. docs/compare.md has the details.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compare/CompareFile.hpp"
#include "compare/StepBound.hpp"

namespace clearfog::compare {

struct PlatformResult {
  std::filesystem::path platform_file;
  std::string platform;              // name from the file
  int devices = 0;
  double power_W = 0;                // accelerator power.peak x devices; 0 = unknown
  double sram_B = 0;                 // on-chip memory per device (accelerator sram.shared)
  double sram_Bps = 0;               // its bandwidth; 0 = not modelled
  double dram_Bps = 0;               // device (off-chip) memory bandwidth
  double capacity_B = 0;             // device memory
  int global_batch = 0;

  int considered = 0;                // configurations enumerated
  int invalid = 0;                   // refused by the scenario validator
  int oom = 0;                       // memory estimate above the device memory: not simulated
  int over_headroom = 0;             // fits, but above (1 - headroom) x capacity: never the best
  int simulated = 0;                 // at the search fidelity (the step-fidelity re-run not counted)
  int failed = 0;                    // simulations that ended in an error
  std::string invalid_example;       // one validator message
  std::string failure;               // the first simulation error

  /// Among the oom configurations, the one needing the least memory: parallelism and memory
  /// breakdown (what it would take to fit). Null when some configuration fits or none was oom.
  nlohmann::ordered_json least_memory;

  /// Every configuration considered, in the order tried: its knobs (knobs_json), status (ok,
  /// over_headroom, oom, invalid, error), the memory estimate's breakdown (ok, over_headroom,
  /// oom), the step time at the search fidelity (ok, over_headroom) or the message (invalid, error).
  std::vector<nlohmann::ordered_json> configurations;

  nlohmann::ordered_json best;       // summary JSON of the chosen configuration, null if none
  StepBreakdown best_breakdown;
  std::string fidelity;              // of `best`
  double search_step_s = 0;          // the chosen configuration's step time at the search fidelity

  /// The configuration ranked second at the same fidelity as `best` (null if none): its summary
  /// and breakdown, to say why the best was chosen.
  nlohmann::ordered_json runner_up;
  StepBreakdown runner_up_breakdown;
  /// When no configuration fits under the headroom: the fastest that fits only above it (summary),
  /// else null.
  nlohmann::ordered_json fastest_over_headroom;
  /// Why the search stopped early (a signal), empty when it ran to its end: the best is then the
  /// fastest simulated so far, at the search fidelity.
  std::string stopped;
};

std::vector<PlatformResult> compare_platforms(const CompareRequest& request);

/// The knobs of a run from its summary JSON: tp, pp, dp, micro_batch, zero_stage, recompute,
/// sequence_parallel, attention, precision.
nlohmann::ordered_json knobs_of(const nlohmann::ordered_json& summary);

}  // namespace clearfog::compare
