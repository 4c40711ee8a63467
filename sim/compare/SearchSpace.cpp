#include "compare/SearchSpace.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace clearfog::compare {
namespace {

constexpr int kMaxZeroStage = 3;

/// Cost points of each knob value (memory_cost_rank): ZeRO 0..3, recompute none/selective/op/full.
constexpr int kZeroCost[] = {0, 1, 2, 3};
int recompute_cost(config::Recompute r) {
  switch (r) {
    case config::Recompute::None: return 0;
    case config::Recompute::Selective: return 1;
    case config::Recompute::Op: return 2;  // pointwise ops and every second matrix product of a layer
    case config::Recompute::Full: return 4;
  }
  return 0;
}

template <typename T, typename Parse>
std::string parse_all(const std::vector<std::string>& values, std::optional<std::vector<T>>& out, Parse parse,
                      const std::string& allowed) {
  std::vector<T> parsed;
  for (const auto& v : values) {
    const std::optional<T> p = parse(v);
    if (!p) return fmt::format("unknown value \"{}\"; allowed: {}", v, allowed);
    if (std::find(parsed.begin(), parsed.end(), *p) == parsed.end()) parsed.push_back(*p);
  }
  out = std::move(parsed);
  return "";
}

std::optional<int> parse_zero(const std::string& s) {
  if (s.size() == 1 && s[0] >= '0' && s[0] <= '0' + kMaxZeroStage) return s[0] - '0';
  return std::nullopt;
}

std::optional<bool> parse_bool(const std::string& s) {
  if (s == "true") return true;
  if (s == "false") return false;
  return std::nullopt;
}

std::optional<DType> parse_training_dtype(const std::string& s) {
  const auto d = parse_dtype(s);
  if (d && std::find(kTrainingDTypes.begin(), kTrainingDTypes.end(), *d) != kTrainingDTypes.end()) return d;
  return std::nullopt;
}

template <typename E, std::size_t N, typename Name>
std::string names_of(const std::array<E, N>& all, Name name) {
  std::vector<std::string> v;
  for (E e : all) v.emplace_back(name(e));
  return fmt::format("{}", fmt::join(v, ", "));
}

}  // namespace

std::vector<std::string> search_knob_names() {
  return {"zero_stage", "recompute", "sequence_parallel", "attention", "precision"};
}

std::string SearchSpace::restrict(const std::string& knob, const std::vector<std::string>& values) {
  if (values.empty()) return "needs at least one value";
  if (knob == "zero_stage") return parse_all(values, zero_stages, parse_zero, "0, 1, 2, 3");
  if (knob == "recompute")
    return parse_all(values, recomputes, [](const std::string& s) { return config::parse_recompute(s); },
                     names_of(config::kAllRecomputes, config::recompute_name));
  if (knob == "sequence_parallel") return parse_all(values, sequence_parallel, parse_bool, "false, true");
  if (knob == "attention")
    return parse_all(values, attentions, [](const std::string& s) { return config::parse_attention(s); },
                     names_of(config::kAllAttentions, config::attention_name));
  if (knob == "precision")
    return parse_all(values, precisions, parse_training_dtype, names_of(kTrainingDTypes, dtype_name));
  return fmt::format("unknown knob \"{}\"; known: {}", knob, fmt::join(search_knob_names(), ", "));
}

int memory_cost_rank(const MemoryKnobs& k) {
  return kZeroCost[std::clamp(k.zero_stage, 0, kMaxZeroStage)] + recompute_cost(k.recompute);
}

std::vector<MemoryKnobs> SearchSpace::memory_ladder() const {
  const std::vector<int> zeros = zero_stages.value_or(std::vector<int>{0, 1, 2, 3});
  // Per-op checkpointing is torchtitan's policy, searched when named: it is refused for MoE
  // workloads (TransformerType::check_scenario).
  const std::vector<config::Recompute> recs = recomputes.value_or(
      std::vector<config::Recompute>{config::Recompute::None, config::Recompute::Selective, config::Recompute::Full});
  std::vector<MemoryKnobs> ladder;
  for (int z : zeros)
    for (auto r : recs) ladder.push_back({z, r});
  // Cheapest first; on a tie the lower ZeRO stage (no extra communication) first.
  std::stable_sort(ladder.begin(), ladder.end(), [](const MemoryKnobs& a, const MemoryKnobs& b) {
    const int ca = memory_cost_rank(a), cb = memory_cost_rank(b);
    return ca != cb ? ca < cb : a.zero_stage < b.zero_stage;
  });
  return ladder;
}

}  // namespace clearfog::compare
