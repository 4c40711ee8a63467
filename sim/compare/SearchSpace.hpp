#pragma once
// The training knobs `clearfog compare` searches besides the tp x pp x dp layout and the
// micro-batch, and the values a user may restrict each to (the `search:` section of a comparison
// file, `--search KNOB=V1,V2` on the command line):
//
//   zero_stage: [0, 1, 2, 3]                memory knobs: for each configuration the search takes
//   recompute: [none, selective, full; op]  the cheapest combination that fits (memory_ladder; op when named)
//   sequence_parallel: [false, true]        speed knobs: varied around the best layouts; sequence
//   attention: [unfused, fused]             parallelism only where tp > 1, fused attention only for
//   precision: [bf16, fp16, fp8, ...]       transformers, precisions only where the accelerator has a peak
#include <optional>
#include <string>
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "core/DType.hpp"

namespace clearfog::compare {

/// One memory-saving combination: a ZeRO stage and an activation recomputation.
struct MemoryKnobs {
  int zero_stage = 0;
  config::Recompute recompute = config::Recompute::None;
  auto operator<=>(const MemoryKnobs&) const = default;
};

/// Each knob's allowed values; absent: every value the knob has (filtered per platform and layout).
struct SearchSpace {
  std::optional<std::vector<int>> zero_stages;
  std::optional<std::vector<config::Recompute>> recomputes;
  std::optional<std::vector<bool>> sequence_parallel;
  std::optional<std::vector<config::Attention>> attentions;
  std::optional<std::vector<DType>> precisions;

  /// Restricts `knob` to the comma-separated or listed `values`; returns what is wrong (unknown
  /// knob, bad value, empty list) or an empty string.
  std::string restrict(const std::string& knob, const std::vector<std::string>& values);

  /// The memory knobs allowed, cheapest first (see memory_cost_rank).
  [[nodiscard]] std::vector<MemoryKnobs> memory_ladder() const;
};

/// The knob names `search:` accepts.
std::vector<std::string> search_knob_names();

/// Order of the memory knobs by the time they are expected to cost, cheapest first: ZeRO-1 and -2
/// move as many bytes as the all-reduce they replace, selective recomputation repeats the attention
/// core, full recomputation a whole forward (a third more compute), ZeRO-3 gathers every layer's
/// parameters twice. Documented in docs/compare.md ("How the search is bounded").
int memory_cost_rank(const MemoryKnobs& k);

}  // namespace clearfog::compare
