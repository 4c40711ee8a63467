#pragma once
// `clearfog compare`: one workload on several platforms. For each platform every parallelism
// configuration the scenario validator accepts (tp*pp*dp = devices over the divisors of the device
// count; today dp only) is simulated in a child process, and the fastest that fits in memory is kept.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace clearfog::sweep {

struct CompareRequest {
  std::filesystem::path workload;
  std::vector<std::filesystem::path> platforms;
  std::optional<int> devices;        // overrides the platform's node.devices
  std::optional<int> global_batch;   // default: 4 x the least common multiple of the device counts
  int micro_batch = 1;
};

struct PlatformResult {
  std::filesystem::path platform_file;
  std::string platform;              // name from the file
  int devices = 0;
  double power_W = 0;                // accelerator peak power x devices; 0 = unknown
  int tried = 0;                     // configurations simulated
  int rejected = 0;                  // configurations the validator refused
  std::string error;                 // why nothing ran, if so
  nlohmann::ordered_json best;       // summary JSON of the chosen configuration (null if none)
};

std::vector<PlatformResult> compare_platforms(const CompareRequest& request);

/// What bounds the iteration: "interconnect" when exposed communication exceeds a quarter of the
/// step, "memory capacity" when the model does not fit, otherwise "compute".
std::string dominant_bound(const nlohmann::ordered_json& summary);

std::string render_comparison(const CompareRequest& request, const std::vector<PlatformResult>& results);

/// Reads a comparison file (kind: compare; workload, platforms, optional devices, global_batch,
/// micro_batch; paths relative to the file).
CompareRequest load_compare_file(const std::filesystem::path& file);

}  // namespace clearfog::sweep
