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
#include <filesystem>
#include <optional>
#include <vector>

#include "config/CollectiveSpec.hpp"

namespace clearfog::sweep {

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
};

/// Reads a comparison file; throws ConfigError with every problem located (file:line:col).
CompareRequest load_compare_file(const std::filesystem::path& file);

}  // namespace clearfog::sweep
