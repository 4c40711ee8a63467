#pragma once
// What `clearfog compare` is asked to do, and the comparison file (scenarios/compare/) it comes from:
//
//   kind: compare
//   name: bert-large-systems
//   workload: ../../workloads/bert-large.yaml   # relative to the file
//   platforms: [../../platforms/dgx-a100.yaml, ...]
//   devices: 8              # optional: overrides every platform's node.devices
//   global_batch: 256       # optional: default 4 x the least common multiple of the device counts
//   micro_batch: 1          # optional: default, the search tries 1, 2, 4, ... (see Compare.hpp)
//   memory_headroom: 0.05   # optional: share of the device memory a best configuration leaves free
//   set: {training.optimizer: sgd}          # optional: scenario overrides, as `run --set`
//   search: {zero_stage: [0, 1], precision: [bf16, fp8]}   # optional: restricts the knobs searched
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "config/CollectiveSpec.hpp"
#include "config/Override.hpp"
#include "core/Errors.hpp"
#include "compare/SearchSpace.hpp"

namespace clearfog::compare {

struct CompareRequest {
  std::filesystem::path workload;
  std::vector<std::filesystem::path> platforms;
  std::optional<int> devices;        // overrides the platform's node.devices
  std::optional<int> global_batch;   // default: 4 x the least common multiple of the device counts
  std::optional<int> micro_batch;    // fixed; default: searched
  int jobs = 1;                      // candidate simulations at the same time
  /// Fidelity of the search. Fluid makes one op per collective and lets the 3D planner fuse each
  /// model chunk's layers, which keeps a candidate cheap.
  config::Fidelity search_fidelity = config::Fidelity::Fluid;
  /// Re-simulates each platform's winner at step fidelity for the reported row.
  bool confirm_at_step = true;
  /// Scenario overrides applied to every configuration before the search (`set:`, --set), with
  /// where each is written (file:line:col, or "--set").
  std::vector<config::Override> set;
  std::vector<SourceLocation> set_locations;
  /// Which values of the training knobs the search may use.
  SearchSpace search;
  /// A configuration whose memory estimate exceeds (1 - memory_headroom) x the device memory is
  /// never the best one (it may still be simulated and reported).
  double memory_headroom = 0.05;
  /// Seconds one configuration's simulation may take before it is stopped and counted as failed
  /// (0: no limit); the host memory one may use (refused before it runs above it; none: no check).
  double timeout_s = 0;
  std::optional<double> max_memory_B;
  /// Progress lines ("compare: DGX A100: pass 1, 12/46 (25 s)"); none: silent.
  std::function<void(const std::string&)> progress;
};

/// Reads a comparison file; throws ConfigError with every problem located (file:line:col).
CompareRequest load_compare_file(const std::filesystem::path& file);

}  // namespace clearfog::compare
