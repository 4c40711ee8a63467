#include "compare/CompareKnobs.hpp"

#include <algorithm>
#include <array>

#include "config/WorkloadTypeSchema.hpp"
#include "compare/CompareChecks.hpp"

namespace clearfog::compare::search {
namespace {

/// Layouts (tp, pp, dp) whose speed knobs are varied after the first pass.
constexpr int kRefinedLayouts = 3;
/// Largest micro-batch tried: beyond it the GEMMs are already large and activations only grow.
constexpr int kMaxMicroBatch = 16;
/// Precisions in the order a base precision is picked; fp8 is searched only when asked for
/// (`search: {precision: [bf16, fp8]}`): training in it needs a scaling recipe.
constexpr std::array<DType, 4> kPrecisionPreference = {DType::bf16, DType::fp16, DType::tf32, DType::fp32};

/// Precisions to try: the allowed ones the accelerator has a peak for, the base first; another one
/// only if no allowed precision has at least its peak with at most its bytes per element.
std::vector<DType> precisions_for(const CompareRequest& req, const config::AcceleratorSpec& acc) {
  std::vector<DType> allowed;
  if (const auto fixed = set_value(req, "training.precision"); fixed && parse_dtype(*fixed))
    allowed = {*parse_dtype(*fixed)};
  else if (req.search.precisions)
    allowed = *req.search.precisions;
  else
    allowed.assign(kPrecisionPreference.begin(), kPrecisionPreference.end());
  std::vector<DType> supported;
  for (DType d : allowed)
    if (acc.peak_flops.count(d)) supported.push_back(d);
  if (supported.empty()) return {allowed.front()};  // the validator says which precisions are allowed
  std::stable_sort(supported.begin(), supported.end(), [](DType a, DType b) {
    const auto rank = [](DType d) {
      return std::find(kPrecisionPreference.begin(), kPrecisionPreference.end(), d) - kPrecisionPreference.begin();
    };
    return rank(a) < rank(b);
  });
  std::vector<DType> out = {supported.front()};
  for (std::size_t i = 1; i < supported.size(); ++i) {
    const DType d = supported[i];
    const bool dominated = std::any_of(supported.begin(), supported.begin() + static_cast<std::ptrdiff_t>(i), [&](DType q) {
      return acc.peak(q) >= acc.peak(d) && dtype_bytes(q) <= dtype_bytes(d);
    });
    if (!dominated) out.push_back(d);
  }
  return out;
}

}  // namespace

bool within_headroom(const PlatformState& p, const Config& c) {
  return p.result.configurations.at(p.row.at(c)).at("status") == "ok";
}

std::vector<Config> ranked(const PlatformState& p, bool over) {
  std::vector<std::pair<double, Config>> v;
  for (const auto& [c, j] : p.done)
    if (within_headroom(p, c) != over) v.emplace_back(j.at("summary").at("samples_per_s").get<double>(), c);
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Config> out;
  for (const auto& [rate, c] : v) out.push_back(c);
  return out;
}

std::vector<Config> best_layouts(const PlatformState& p) {
  std::vector<Config> out;
  std::set<std::tuple<int, int, int>> layouts;
  for (const Config& c : ranked(p))
    if (layouts.insert(c.layout()).second && out.size() < kRefinedLayouts) out.push_back(c);
  return out;
}

SpeedValues speed_values(const CompareRequest& req, const config::AcceleratorSpec& acc, const std::string& workload_type) {
  SpeedValues v;
  if (const auto fixed = set_value(req, "parallelism.sequence_parallel"))
    v.sequence_parallel = {*fixed == "true"};
  else if (!config::workload_traits(workload_type).attention)
    v.sequence_parallel = {false};
  else
    v.sequence_parallel = req.search.sequence_parallel.value_or(std::vector<bool>{true, false});
  // Fused attention first: no s^2 scores in memory, no s^2 traffic.
  if (const auto fixed = set_value(req, "training.attention"); fixed && config::parse_attention(*fixed))
    v.attentions = {config::parse_attention(*fixed)};
  else if (!config::workload_traits(workload_type).attention)
    v.attentions = {std::nullopt};
  else
    for (auto a : req.search.attentions.value_or(std::vector<config::Attention>{config::Attention::Fused,
                                                                                config::Attention::Unfused}))
      v.attentions.push_back(a);
  v.precisions = precisions_for(req, acc);
  return v;
}

std::vector<MemoryKnobs> ladder_for(const CompareRequest& req) {
  SearchSpace s = req.search;
  if (const auto zero = set_value(req, "parallelism.zero_stage")) (void)s.restrict("zero_stage", {*zero});
  if (const auto rec = set_value(req, "training.recompute")) (void)s.restrict("recompute", {*rec});
  return s.memory_ladder();
}


Config base_point(const PlatformState& p, int tp, int pp, int dp, int micro_batch) {
  Config c;
  c.tp = tp;
  c.pp = pp;
  c.dp = dp;
  c.micro_batch = micro_batch;
  c.sequence_parallel = tp > 1 && p.start_sequence_parallel;
  c.attention = p.start_attention;
  c.precision = p.start_precision;
  return c;
}

bool restart_from_best(PlatformState& p) {
  const auto order = ranked(p);
  if (order.empty()) return false;
  const Config& best = order.front();
  bool changed = false;
  if (best.attention != p.start_attention) p.start_attention = best.attention, changed = true;
  if (best.precision != p.start_precision) p.start_precision = best.precision, changed = true;
  if (best.tp > 1 && best.sequence_parallel != p.start_sequence_parallel)
    p.start_sequence_parallel = best.sequence_parallel, changed = true;
  return changed;
}

std::vector<Config> variations(const PlatformState& p, const Config& base, const CompareRequest& req) {
  std::vector<Config> out;
  if (!req.micro_batch) {
    const int per_replica = p.result.global_batch / base.dp;
    for (int mb = 1; mb <= std::min(per_replica, kMaxMicroBatch); mb *= 2) {
      Config c = base;
      c.micro_batch = mb;
      out.push_back(c);
    }
  }
  if (base.tp > 1)
    for (bool sp : p.speed.sequence_parallel) {
      Config c = base;
      c.sequence_parallel = sp;
      out.push_back(c);
    }
  for (const auto& a : p.speed.attentions) {
    Config c = base;
    c.attention = a;
    out.push_back(c);
  }
  for (DType d : p.speed.precisions) {
    Config c = base;
    c.precision = d;
    out.push_back(c);
  }
  return out;
}

Config combined(const PlatformState& p, const Config& base) {
  const auto rate = [&](const Config& c) { return p.done.at(c).at("summary").at("samples_per_s").get<double>(); };
  Config out = base;
  double mb = 0, sp = 0, att = 0, prec = 0;
  for (const Config& c : ranked(p)) {
    if (c.layout() != base.layout()) continue;
    // A point that differs from the base in one knob votes for that knob's value.
    const Config& b = base;
    const int differ = (c.micro_batch != b.micro_batch) + (c.sequence_parallel != b.sequence_parallel) +
                       (c.attention != b.attention) + (c.precision != b.precision);
    if (differ != 1) continue;
    const double r = rate(c);
    if (c.micro_batch != b.micro_batch && r > mb) mb = r, out.micro_batch = c.micro_batch;
    if (c.sequence_parallel != b.sequence_parallel && r > sp) sp = r, out.sequence_parallel = c.sequence_parallel;
    if (c.attention != b.attention && r > att) att = r, out.attention = c.attention;
    if (c.precision != b.precision && r > prec) prec = r, out.precision = c.precision;
  }
  // A knob only takes the other value when it beat the base.
  const double base_rate = p.done.count(base) ? rate(base) : 0;
  if (mb <= base_rate) out.micro_batch = base.micro_batch;
  if (sp <= base_rate) out.sequence_parallel = base.sequence_parallel;
  if (att <= base_rate) out.attention = base.attention;
  if (prec <= base_rate) out.precision = base.precision;
  return out;
}

}  // namespace clearfog::compare::search
