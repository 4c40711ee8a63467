#include "sweep/Compare.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "config/ConfigLoader.hpp"
#include "config/DocumentReader.hpp"
#include "core/DType.hpp"
#include "core/Errors.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedPool.hpp"
#include "parallel/MemoryEstimate.hpp"
#include "report/Summary.hpp"
#include "sweep/CompareChecks.hpp"

namespace clearfog::sweep {
namespace {

/// Layouts (tp, pp, dp) whose speed knobs are varied after the first pass.
constexpr int kRefinedLayouts = 3;
/// Configurations per platform re-simulated at step fidelity: fluid collectives can rank close
/// configurations differently.
constexpr int kConfirmed = 3;
/// Largest micro-batch tried: beyond it the GEMMs are already large and activations only grow.
constexpr int kMaxMicroBatch = 16;
/// Precisions in the order a base precision is picked; fp8 is searched only when asked for
/// (`search: {precision: [bf16, fp8]}`): training in it needs a scaling recipe.
constexpr std::array<DType, 4> kPrecisionPreference = {DType::bf16, DType::fp16, DType::tf32, DType::fp32};

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

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

std::string describe(const Config& c) {
  std::string s = fmt::format("tp {} pp {} dp {} micro-batch {}", c.tp, c.pp, c.dp, c.micro_batch);
  s += fmt::format(" zero {} recompute {}", c.memory.zero_stage, config::recompute_name(c.memory.recompute));
  if (c.sequence_parallel) s += " sequence-parallel";
  if (c.attention) s += fmt::format(" attention {}", config::attention_name(*c.attention));
  return s + fmt::format(" {}", dtype_name(c.precision));
}

nlohmann::ordered_json config_json(const Config& c) {
  nlohmann::ordered_json j = {{"tp", c.tp},
                              {"pp", c.pp},
                              {"dp", c.dp},
                              {"micro_batch", c.micro_batch},
                              {"zero_stage", c.memory.zero_stage},
                              {"recompute", config::recompute_name(c.memory.recompute)},
                              {"sequence_parallel", c.sequence_parallel},
                              {"attention", c.attention ? std::string(config::attention_name(*c.attention)) : "default"},
                              {"precision", dtype_name(c.precision)}};
  return j;
}

/// One configuration that passed validation and the memory check, waiting to be simulated.
struct Candidate {
  std::size_t platform = 0;
  Config config;
  config::ScenarioSpec scenario;
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

std::vector<config::Override> config_overrides(const Config& c, const std::vector<config::Override>& extra) {
  std::vector<config::Override> o = {{"parallelism.dp", std::to_string(c.dp)},
                                     {"parallelism.tp", std::to_string(c.tp)},
                                     {"parallelism.pp", std::to_string(c.pp)},
                                     {"training.micro_batch", std::to_string(c.micro_batch)},
                                     {"training.precision", std::string(dtype_name(c.precision))},
                                     {"parallelism.zero_stage", std::to_string(c.memory.zero_stage)},
                                     {"training.recompute", std::string(config::recompute_name(c.memory.recompute))},
                                     {"parallelism.sequence_parallel", c.sequence_parallel ? "true" : "false"}};
  if (c.attention) o.push_back({"training.attention", std::string(config::attention_name(*c.attention))});
  o.insert(o.end(), extra.begin(), extra.end());
  return o;
}

nlohmann::ordered_json memory_json(const parallel::MemoryEstimate& m, double usable_B) {
  return {{"weights_B", m.weights_B},         {"gradients_B", m.gradients_B}, {"optimizer_B", m.optimizer_B},
          {"activations_B", m.activations_B}, {"buffers_B", m.buffers_B},     {"total_B", m.total_B()},
          {"capacity_B", m.capacity_B},       {"usable_B", usable_B},         {"fits", m.fits()},
          {"within_headroom", m.total_B() <= usable_B}};
}

void record_invalid(PlatformState& p, nlohmann::ordered_json& entry, const Config& c, const ConfigError& e) {
  auto& r = p.result;
  ++r.invalid;
  entry["status"] = "invalid";
  std::string message;
  for (const auto& d : e.diagnostics()) message += (message.empty() ? "" : "; ") + d.key + ": " + d.message;
  entry["message"] = message;
  if (r.invalid_example.empty() && !e.diagnostics().empty()) {
    const auto& d = e.diagnostics().front();
    r.invalid_example = fmt::format("{}: {}{}{}", describe(c), d.key, d.key.empty() ? "" : ": ", d.message);
  }
}

/// Picks the memory knobs of speed point `point` (the cheapest rung of the ladder whose estimate
/// fits under the headroom, else the cheapest that fits the device), validates and records it;
/// returns the configuration and scenario when it is worth simulating.
std::optional<Candidate> admit(PlatformState& p, std::size_t index, Config point) {
  point.memory = {};
  if (!p.seen.insert(point).second) return std::nullopt;
  auto& r = p.result;
  struct Fit {
    Config config;
    config::ScenarioSpec scenario;
    parallel::MemoryEstimate memory;
  };
  std::optional<Fit> within, over, least;
  for (const MemoryKnobs& knobs : p.ladder) {
    // ZeRO shards over the data-parallel replicas: with one, every stage holds what stage 0 holds.
    if (point.dp == 1 && knobs.zero_stage > 0 && knobs != p.ladder.front()) continue;
    Config c = point;
    c.memory = knobs;
    config::ScenarioSpec scenario;
    try {
      scenario = config::load_scenario(p.scenario_file, config_overrides(c, p.overrides));
    } catch (const ConfigError& e) {
      // Refused whatever the memory knobs (tp against the heads, ...): one invalid row.
      if (knobs != p.ladder.front()) continue;
      p.refused.insert(c.layout());
      ++r.considered;
      auto& entry = r.configurations.emplace_back(config_json(c));
      record_invalid(p, entry, c, e);
      return std::nullopt;
    }
    const auto memory = parallel::estimate_memory(scenario);
    if (memory.total_B() <= p.usable_B) {
      within = Fit{c, std::move(scenario), memory};
      break;
    }
    if (memory.fits() && !over) over = Fit{c, scenario, memory};
    if (!least || memory.total_B() < least->memory.total_B()) least = Fit{c, std::move(scenario), memory};
  }
  const Fit* pick = within ? &*within : over ? &*over : least ? &*least : nullptr;
  if (!pick) return std::nullopt;
  if (!p.chosen.insert(pick->config).second) return std::nullopt;
  ++r.considered;
  p.row[pick->config] = r.configurations.size();
  auto& entry = r.configurations.emplace_back(config_json(pick->config));
  entry["status"] = within ? "ok" : over ? "over_headroom" : "oom";
  entry["memory"] = memory_json(pick->memory, p.usable_B);
  if (!within && !over) {
    ++r.oom;
    if (r.least_memory.is_null() || pick->memory.total_B() < p.least_memory_B) {
      p.least_memory_B = pick->memory.total_B();
      r.least_memory = {{"parallelism", config_json(pick->config)}, {"memory", memory_json(pick->memory, p.usable_B)}};
    }
    return std::nullopt;
  }
  if (!within) ++r.over_headroom;
  return Candidate{index, pick->config, pick->scenario};
}

/// Simulates every candidate in child processes; the child returns the summary and the breakdown.
std::vector<engine::ForkedOutcome> simulate_all(const std::vector<Candidate>& candidates, int jobs) {
  std::vector<std::function<std::string()>> bodies;
  for (const auto& c : candidates)
    bodies.emplace_back([&scenario = c.scenario] {
      const auto run = driver::run_scenario(scenario);
      nlohmann::ordered_json j;
      j["summary"] = report::summary_json(scenario, run.metrics);
      j["breakdown"] = breakdown_json(step_breakdown(scenario, run.step, run.simulation));
      return j.dump();
    });
  return engine::run_forked_all(bodies, jobs);
}

void record(std::vector<PlatformState>& platforms, const std::vector<Candidate>& candidates,
            const std::vector<engine::ForkedOutcome>& outcomes) {
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto& p = platforms[candidates[i].platform];
    ++p.result.simulated;
    auto& entry = p.result.configurations[p.row.at(candidates[i].config)];
    if (!outcomes[i].ok) {
      ++p.result.failed;
      entry["status"] = "error";
      entry["message"] = outcomes[i].text;
      if (p.result.failure.empty()) p.result.failure = outcomes[i].text;
      continue;
    }
    auto& j = p.done[candidates[i].config] = nlohmann::ordered_json::parse(outcomes[i].text);
    entry["step_time_s"] = j.at("summary").at("step_time_s");
  }
}

void simulate(std::vector<PlatformState>& platforms, const std::vector<Candidate>& candidates, int jobs,
              const char* what) {
  spdlog::info("compare: {} candidates {}", candidates.size(), what);
  record(platforms, candidates, simulate_all(candidates, jobs));
}

bool within_headroom(const PlatformState& p, const Config& c) {
  return p.result.configurations.at(p.row.at(c)).at("status") == "ok";
}

/// Simulated configurations of a platform that fit under the headroom (or, with `over`, those that
/// do not), fastest first (ties: the order of the Config fields, smaller first).
std::vector<Config> ranked(const PlatformState& p, bool over = false) {
  std::vector<std::pair<double, Config>> v;
  for (const auto& [c, j] : p.done)
    if (within_headroom(p, c) != over) v.emplace_back(j.at("summary").at("samples_per_s").get<double>(), c);
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Config> out;
  for (const auto& [rate, c] : v) out.push_back(c);
  return out;
}

/// The best layouts' base points: the fastest configuration of each of the first few layouts.
std::vector<Config> best_layouts(const PlatformState& p) {
  std::vector<Config> out;
  std::set<std::tuple<int, int, int>> layouts;
  for (const Config& c : ranked(p))
    if (layouts.insert(c.layout()).second && out.size() < kRefinedLayouts) out.push_back(c);
  return out;
}

/// The global batch: the request's, or 4 x the least common multiple of the device counts when
/// that is an int (a located error otherwise).
int default_global_batch(const CompareRequest& req, const std::vector<config::PlatformSpec>& specs) {
  std::int64_t lcm = 1;
  std::vector<int> counts;
  for (const auto& s : specs) {
    counts.push_back(s.device_count());
    lcm = std::lcm(lcm, static_cast<std::int64_t>(s.device_count()));  // <= 16384^n: capped below
    lcm = std::min<std::int64_t>(lcm, std::int64_t{INT_MAX});
  }
  if (!req.global_batch && 4 * lcm > INT_MAX)
    throw ConfigError({{{"compare", 0, 0}, "global_batch",
                        fmt::format("the default global batch, 4 x the least common multiple of the device counts "
                                    "{}, is beyond 2^31; give global_batch (or --global-batch)",
                                    fmt::join(counts, ", "))}});
  return req.global_batch.value_or(static_cast<int>(4 * lcm));
}

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

SpeedValues speed_values(const CompareRequest& req, const config::AcceleratorSpec& acc, const std::string& workload_type) {
  SpeedValues v;
  if (const auto fixed = set_value(req, "parallelism.sequence_parallel"))
    v.sequence_parallel = {*fixed == "true"};
  else if (workload_type != "transformer")
    v.sequence_parallel = {false};
  else
    v.sequence_parallel = req.search.sequence_parallel.value_or(std::vector<bool>{true, false});
  // Fused attention first: no s^2 scores in memory, no s^2 traffic.
  if (const auto fixed = set_value(req, "training.attention"); fixed && config::parse_attention(*fixed))
    v.attentions = {config::parse_attention(*fixed)};
  else if (workload_type != "transformer")
    v.attentions = {std::nullopt};
  else
    for (auto a : req.search.attentions.value_or(std::vector<config::Attention>{config::Attention::Fused,
                                                                                config::Attention::Unfused}))
      v.attentions.push_back(a);
  v.precisions = precisions_for(req, acc);
  return v;
}

/// The memory ladder, or the single rung `set` fixes for ZeRO stage and recomputation.
std::vector<MemoryKnobs> ladder_for(const CompareRequest& req) {
  SearchSpace s = req.search;
  if (const auto zero = set_value(req, "parallelism.zero_stage")) (void)s.restrict("zero_stage", {*zero});
  if (const auto rec = set_value(req, "training.recompute")) (void)s.restrict("recompute", {*rec});
  return s.memory_ladder();
}

/// Platform `i` of the request: its figures, and its scenario file (absolute paths) in `dir`.
PlatformState platform_state(const CompareRequest& req, const config::PlatformSpec& spec, const std::string& workload_type,
                             std::size_t i, const std::filesystem::path& dir, int global_batch) {
  PlatformState p;
  auto& r = p.result;
  r.platform_file = req.platforms[i];
  r.platform = spec.name;
  r.devices = spec.device_count();
  r.power_W = spec.accelerator.power_W * r.devices;
  r.sram_B = spec.accelerator.sram_shared_B;
  r.sram_Bps = spec.accelerator.sram_shared_bandwidth_Bps;
  r.dram_Bps = spec.accelerator.memory_bandwidth_Bps;
  r.capacity_B = spec.accelerator.memory_capacity_B;
  r.global_batch = global_batch;
  p.usable_B = (1 - req.memory_headroom) * r.capacity_B;
  p.speed = speed_values(req, spec.accelerator, workload_type);
  p.start_sequence_parallel = p.speed.sequence_parallel.front();
  p.start_attention = p.speed.attentions.front();
  p.start_precision = p.speed.precisions.front();
  p.ladder = ladder_for(req);
  p.scenario_file = dir / fmt::format("platform{}.yaml", i);
  if (req.devices) p.overrides.push_back({"platform.node.devices", std::to_string(*req.devices)});
  p.overrides.insert(p.overrides.end(), req.set.begin(), req.set.end());
  write_scenario_file(p.scenario_file, req, req.platforms[i], global_batch);
  return p;
}

/// The base point of a layout: the first value of every speed knob.
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

/// After a round: when the best configuration took another attention kind, precision or (with
/// tp > 1) sequence-parallel setting than every layout started from, start from the best's values;
/// returns whether they changed (every layout is then tried again with them).
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

/// Variations of `base`, one speed knob at a time.
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

/// The best value of every speed knob among the simulated points of `base`'s layout, together.
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

/// Each platform's best configuration: the fastest of the search, or, with confirm_at_step, the
/// fastest of the few best re-simulated at step fidelity; the runner-up at the same fidelity.
void report_best(std::vector<PlatformState>& platforms, const CompareRequest& req) {
  std::vector<Candidate> finals;
  for (std::size_t i = 0; i < platforms.size(); ++i) {
    auto& p = platforms[i];
    auto& r = p.result;
    const auto order = ranked(p);
    if (order.empty()) {
      const auto over = ranked(p, true);
      if (!over.empty()) r.fastest_over_headroom = p.done.at(over.front()).at("summary");
      continue;
    }
    const auto& j = p.done.at(order.front());
    r.best = j.at("summary");
    r.best_breakdown = breakdown_from_json(j.at("breakdown"));
    r.fidelity = config::fidelity_name(req.search_fidelity);
    r.search_step_s = r.best.at("step_time_s").get<double>();
    if (order.size() > 1) {
      r.runner_up = p.done.at(order[1]).at("summary");
      r.runner_up_breakdown = breakdown_from_json(p.done.at(order[1]).at("breakdown"));
    }
    if (!req.confirm_at_step || req.search_fidelity == config::Fidelity::Step) continue;
    for (std::size_t k = 0; k < order.size() && k < kConfirmed; ++k) {
      auto o = config_overrides(order[k], p.overrides);
      o.push_back({"collectives.fidelity", "step"});
      finals.push_back({i, order[k], config::load_scenario(p.scenario_file, o)});
    }
  }
  spdlog::info("compare: {} configurations re-simulated at step fidelity", finals.size());
  const auto outcomes = simulate_all(finals, req.jobs);
  // Per platform, the step-fidelity results, fastest first.
  std::map<std::size_t, std::vector<std::pair<double, std::size_t>>> confirmed;
  for (std::size_t k = 0; k < finals.size(); ++k) {
    if (!outcomes[k].ok) {
      spdlog::warn("compare: {}: the step-fidelity run of {} failed: {}", platforms[finals[k].platform].result.platform,
                   describe(finals[k].config), outcomes[k].text);
      continue;
    }
    const double step =
        nlohmann::ordered_json::parse(outcomes[k].text).at("summary").at("step_time_s").get<double>();
    confirmed[finals[k].platform].emplace_back(step, k);
  }
  for (auto& [i, list] : confirmed) {
    std::stable_sort(list.begin(), list.end());
    auto& p = platforms[i];
    auto& r = p.result;
    const auto j = nlohmann::ordered_json::parse(outcomes[list[0].second].text);
    r.best = j.at("summary");
    r.best_breakdown = breakdown_from_json(j.at("breakdown"));
    r.fidelity = "step";
    r.search_step_s = p.done.at(finals[list[0].second].config).at("summary").at("step_time_s").get<double>();
    if (list.size() > 1) {
      const auto second = nlohmann::ordered_json::parse(outcomes[list[1].second].text);
      r.runner_up = second.at("summary");
      r.runner_up_breakdown = breakdown_from_json(second.at("breakdown"));
    }
  }
}

}  // namespace

nlohmann::ordered_json knobs_of(const nlohmann::ordered_json& s) {
  const auto& par = s.at("parallelism");
  const auto& tr = s.at("training");
  const auto& more = s.at("parallel");
  return {{"tp", par.at("tp")},
          {"pp", par.at("pp")},
          {"dp", par.at("dp")},
          {"micro_batch", tr.at("micro_batch")},
          {"zero_stage", more.at("zero_stage")},
          {"recompute", more.at("recompute")},
          {"sequence_parallel", more.at("sequence_parallel")},
          {"attention", tr.at("attention")},
          {"precision", tr.at("precision")}};
}

std::vector<PlatformResult> compare_platforms(const CompareRequest& req) {
  // A bad workload, platform or `set` entry is the user's mistake, not a refused configuration:
  // checked first so that it surfaces as a ConfigError with its location (validate runs the same).
  check_compare_request(req);
  // One scenario file per platform in a private temp directory, with absolute paths.
  const ScratchDir scratch;
  const std::filesystem::path& dir = scratch.dir;
  const auto workload = config::load_workload(replaced(req, "workload", req.workload), set_below(req, "workload"));
  std::vector<PlatformState> platforms;
  std::vector<config::PlatformSpec> specs;
  for (const auto& file : req.platforms) {
    auto o = set_below(req, "platform");
    if (req.devices) o.push_back({"node.devices", std::to_string(*req.devices)});
    specs.push_back(config::load_platform(replaced(req, "platform", file), o));
  }
  const int global_batch = default_global_batch(req, specs);

  for (std::size_t i = 0; i < specs.size(); ++i)
    platforms.push_back(platform_state(req, specs[i], workload.type, i, dir, global_batch));

  // A round of three passes over the active platforms (docs/compare.md, "How the search works").
  const auto round = [&](const std::vector<bool>& active) {
    // Pass 1: every layout at micro-batch 1 (or the fixed one), the starting speed knobs.
    std::vector<Candidate> candidates;
    for (std::size_t i = 0; i < platforms.size(); ++i) {
      if (!active[i]) continue;
      const int devices = platforms[i].result.devices;
      for (int tp : divisors(devices))
        for (int pp : divisors(devices / tp))
          if (platforms[i].refused.count({tp, pp, devices / tp / pp}) == 0)  // refused once is enough
            if (auto c = admit(platforms[i], i,
                               base_point(platforms[i], tp, pp, devices / tp / pp, req.micro_batch.value_or(1))))
              candidates.push_back(std::move(*c));
    }
    simulate(platforms, candidates, req.jobs, "with the starting knobs");

    // Pass 2: the best layouts with each speed knob varied on its own.
    std::vector<std::vector<Config>> bases(platforms.size());
    candidates.clear();
    for (std::size_t i = 0; i < platforms.size(); ++i) {
      if (!active[i]) continue;
      bases[i] = best_layouts(platforms[i]);
      for (const Config& base : bases[i])
        for (const Config& v : variations(platforms[i], base, req))
          if (auto c = admit(platforms[i], i, v)) candidates.push_back(std::move(*c));
    }
    simulate(platforms, candidates, req.jobs, "varying one speed knob");

    // Pass 3: the winning value of every speed knob together.
    candidates.clear();
    for (std::size_t i = 0; i < platforms.size(); ++i)
      for (const Config& base : bases[i])
        if (auto c = admit(platforms[i], i, combined(platforms[i], base))) candidates.push_back(std::move(*c));
    simulate(platforms, candidates, req.jobs, "combining the best speed knobs");
  };
  round(std::vector<bool>(platforms.size(), true));
  // A second round where the best changed a platform-wide knob (an attention kind the kernel model
  // finds slow on this accelerator ranks every layout wrongly).
  std::vector<bool> again(platforms.size());
  for (std::size_t i = 0; i < platforms.size(); ++i) again[i] = restart_from_best(platforms[i]);
  if (std::find(again.begin(), again.end(), true) != again.end()) round(again);

  report_best(platforms, req);

  std::vector<PlatformResult> results;
  for (auto& p : platforms) {
    if (!p.result.best.is_null()) p.result.least_memory = nullptr;
    results.push_back(std::move(p.result));
  }
  return results;
}

}  // namespace clearfog::sweep
