#pragma once
// `clearfog burst`: DeepPool's two ideas on a scenario's CNN (docs/burst-parallelism.md). For each
// device budget: plain data parallelism over all devices, burst parallelism (per-layer widths from
// parallel/BurstPlanner.hpp), each alone and with a background job multiplexed on every device;
// every variant simulated (SimGrid, real messages) and compared on cluster throughput.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/Override.hpp"
#include "engine/ReplayOptions.hpp"

namespace clearfog::burst {

struct BurstOptions {
  std::string scenario;                 // the foreground job: workload, platform, global batch
  std::vector<config::Override> sets;   // applied to it
  std::vector<int> devices;             // device budgets to compare
  double amplification_limit = 2.0;
  std::optional<std::string> background;  // a workload file trained alone on each device
  int background_batch = 32;
  int iterations = 3;
  /// Keep an SVG timeline of each budget's dp and burst variants (with the background, if any).
  bool timelines = false;
  engine::ReplayOptions replay;  // every variant's simulation (max_memory_B: --max-memory)
  /// Told what is about to be simulated ("16 devices (budget 2 of 4): burst candidate 3"); may be empty.
  std::function<void(const std::string&)> progress;
};

/// One variant simulated: the foreground's mean iteration and what the background did meanwhile.
struct BurstVariant {
  double step_s = 0;                    // foreground iterations' span / iterations
  double samples_per_s = 0;             // foreground
  double background_samples_per_s = 0;  // all devices together, over the foreground's span
  std::string timeline_svg;             // BurstOptions::timelines: the simulated iterations
  [[nodiscard]] double cluster_samples_per_s() const { return samples_per_s + background_samples_per_s; }
};

struct BurstPoint {
  int devices = 0;
  std::vector<std::string> layers;
  std::vector<int> widths;          // burst plan: devices per layer
  std::vector<std::vector<std::size_t>> candidates;  // the distinct plans simulated to pick it
  double estimated_dp_s = 0, estimated_burst_s = 0;  // the planner's estimates
  BurstVariant dp, dp_background, burst, burst_background;
};

struct BurstResult {
  std::string scenario, workload, platform, background;
  int global_batch = 0, background_batch = 0;
  double amplification_limit = 0;
  std::vector<BurstPoint> points;
};

/// Throws ConfigError (located at the option) for a budget the scenario's batch or platform cannot take.
BurstResult run_burst(const BurstOptions& options);
std::string render_burst_text(const BurstResult& result);
nlohmann::json burst_json(const BurstResult& result);

}  // namespace clearfog::burst
