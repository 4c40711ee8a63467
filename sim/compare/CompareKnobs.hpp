#pragma once
// The knob search of `clearfog compare` (docs/compare.md, "How the search works"): what one
// configuration is, the state kept per platform, the values each speed knob may take, the memory
// ladder, and the steps that pick the next configurations from the simulated ones. Pure functions
// of that state; compare_platforms() (Compare.cpp) validates, simulates and reports.
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/AcceleratorSpec.hpp"
#include "config/Override.hpp"
#include "config/ScenarioSpec.hpp"
#include "core/DType.hpp"
#include "compare/Compare.hpp"
#include "compare/CompareFile.hpp"
#include "compare/SearchSpace.hpp"

namespace clearfog::compare::search {

/// One point of the search: the layout, the speed knobs and the memory knobs.
struct Config {
  int tp = 1, pp = 1, dp = 1, micro_batch = 1;
  bool sequence_parallel = false;
  std::optional<config::Attention> attention;  // absent: the framework's (not a transformer)
  DType precision = DType::bf16;
  MemoryKnobs memory;
  auto operator<=>(const Config&) const = default;
  [[nodiscard]] std::tuple<int, int, int> layout() const { return {tp, pp, dp}; }
};

/// The values each speed knob may take on one platform.
struct SpeedValues {
  std::vector<bool> sequence_parallel;             // used where tp > 1; false elsewhere
  std::vector<std::optional<config::Attention>> attentions;
  std::vector<DType> precisions;                   // the first is the base
};

struct PlatformState {
  PlatformResult result;
  std::filesystem::path scenario_file;
  std::vector<config::Override> overrides;  // devices and the request's `set`, after the layout's
  SpeedValues speed;
  /// The speed knobs every layout starts from: the first values, or the best's after a round.
  bool start_sequence_parallel = false;
  std::optional<config::Attention> start_attention;
  DType start_precision = DType::bf16;
  std::vector<MemoryKnobs> ladder;
  double usable_B = 0;                      // (1 - headroom) x capacity
  std::set<Config> seen;                    // speed points (memory knobs at their default) tried
  std::set<std::tuple<int, int, int>> refused;  // layouts the validator refused in a first pass
  std::set<Config> chosen;                  // configurations admitted or recorded
  std::map<Config, nlohmann::ordered_json> done;  // summary and breakdown of each simulated one
  std::map<Config, std::size_t> row;        // index in result.configurations
  double least_memory_B = 0;
};

/// Whether a simulated configuration fits under the headroom.
bool within_headroom(const PlatformState& p, const Config& c);

/// Simulated configurations of a platform that fit under the headroom (or, with `over`, those that
/// do not), fastest first (ties: the order of the Config fields, smaller first).
std::vector<Config> ranked(const PlatformState& p, bool over = false);

/// The best layouts' base points: the fastest configuration of each of the first few layouts.
std::vector<Config> best_layouts(const PlatformState& p);

/// The values each speed knob may take on a platform with accelerator `acc`.
SpeedValues speed_values(const CompareRequest& req, const config::AcceleratorSpec& acc, const std::string& workload_type);

/// The memory ladder, or the single rung `set` fixes for ZeRO stage and recomputation.
std::vector<MemoryKnobs> ladder_for(const CompareRequest& req);

/// The base point of a layout: the first value of every speed knob.
Config base_point(const PlatformState& p, int tp, int pp, int dp, int micro_batch);

/// After a round: when the best configuration took another attention kind, precision or (with
/// tp > 1) sequence-parallel setting than every layout started from, start from the best's values;
/// returns whether they changed (every layout is then tried again with them).
bool restart_from_best(PlatformState& p);

/// Variations of `base`, one speed knob at a time.
std::vector<Config> variations(const PlatformState& p, const Config& base, const CompareRequest& req);

/// The best value of every speed knob among the simulated points of `base`'s layout, together.
Config combined(const PlatformState& p, const Config& base);

}  // namespace clearfog::compare::search
