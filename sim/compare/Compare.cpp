#include "compare/Compare.hpp"

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
#include "core/Interrupt.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedPool.hpp"
#include "parallel/MemoryEstimate.hpp"
#include "report/Summary.hpp"
#include "compare/CompareChecks.hpp"
#include "compare/CompareKnobs.hpp"
#include "compare/CompareProgress.hpp"

namespace clearfog::compare {
namespace {

using namespace search;

/// Configurations per platform re-simulated at step fidelity: fluid collectives can rank close
/// configurations differently.
constexpr int kConfirmed = 3;

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

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
std::vector<engine::ForkedOutcome> simulate_all(const std::vector<Candidate>& candidates, const CompareRequest& req,
                                                CompareProgress& progress) {
  std::vector<std::function<std::string()>> bodies;
  driver::RunOptions options;
  options.max_memory_bytes = req.max_memory_B;
  for (const auto& c : candidates)
    bodies.emplace_back([&scenario = c.scenario, options] {
      const auto run = driver::run_scenario(scenario, options);
      nlohmann::ordered_json j;
      j["summary"] = report::summary_json(scenario, run.metrics);
      j["breakdown"] = breakdown_json(step_breakdown(scenario, run.step, run.simulation));
      return j.dump();
    });
  engine::ForkedPoolOptions pool{req.jobs, req.timeout_s,
                                 [&progress](std::size_t i, const engine::ForkedOutcome&) { progress.finished(i); },
                                 [&progress] { progress.print(); }};
  return engine::run_forked_all(bodies, pool);
}

void record(std::vector<PlatformState>& platforms, const std::vector<Candidate>& candidates,
            const std::vector<engine::ForkedOutcome>& outcomes) {
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto& p = platforms[candidates[i].platform];
    ++p.result.simulated;
    auto& entry = p.result.configurations[p.row.at(candidates[i].config)];
    if (!outcomes[i].ok) {
      ++p.result.failed;
      entry["status"] = outcomes[i].timed_out ? "timeout" : "error";
      entry["message"] = outcomes[i].text;
      if (p.result.failure.empty()) p.result.failure = outcomes[i].text;
      continue;
    }
    auto& j = p.done[candidates[i].config] = nlohmann::ordered_json::parse(outcomes[i].text);
    entry["step_time_s"] = j.at("summary").at("step_time_s");
  }
}

/// The progress lines of a pass over `candidates`.
CompareProgress pass_progress(const CompareRequest& req, const std::vector<PlatformState>& platforms,
                              const std::vector<Candidate>& candidates, std::string pass) {
  std::vector<std::string> names;
  for (const auto& p : platforms) names.push_back(p.result.platform);
  std::vector<std::size_t> platform_of;
  for (const auto& c : candidates) platform_of.push_back(c.platform);
  return CompareProgress(req.progress, std::move(names), std::move(platform_of), std::move(pass));
}

void simulate(std::vector<PlatformState>& platforms, const std::vector<Candidate>& candidates,
              const CompareRequest& req, const std::string& pass) {
  auto progress = pass_progress(req, platforms, candidates, pass);
  record(platforms, candidates, simulate_all(candidates, req, progress));
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

/// Each platform's best configuration: the fastest of the search, or, with confirm_at_step, the
/// fastest of the few best re-simulated at step fidelity; the runner-up at the same fidelity.
void report_best(std::vector<PlatformState>& platforms, const CompareRequest& req, bool confirm_at_step) {
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
    if (!confirm_at_step || req.search_fidelity == config::Fidelity::Step) continue;
    for (std::size_t k = 0; k < order.size() && k < kConfirmed; ++k) {
      auto o = config_overrides(order[k], p.overrides);
      o.push_back({"collectives.fidelity", "step"});
      finals.push_back({i, order[k], config::load_scenario(p.scenario_file, o)});
    }
  }
  if (finals.empty()) return;
  auto progress = pass_progress(req, platforms, finals, "confirmation (the fastest re-simulated at step fidelity)");
  const auto outcomes = simulate_all(finals, req, progress);
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
  int round_number = 0;
  const auto round = [&](const std::vector<bool>& active) {
    ++round_number;
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
    simulate(platforms, candidates, req, fmt::format("round {} pass 1 (every layout)", round_number));

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
    simulate(platforms, candidates, req, fmt::format("round {} pass 2 (one speed knob varied)", round_number));

    // Pass 3: the winning value of every speed knob together.
    candidates.clear();
    for (std::size_t i = 0; i < platforms.size(); ++i)
      for (const Config& base : bases[i])
        if (auto c = admit(platforms[i], i, combined(platforms[i], base))) candidates.push_back(std::move(*c));
    simulate(platforms, candidates, req, fmt::format("round {} pass 3 (the best knobs together)", round_number));
  };
  std::string stopped;  // why the search ended early: its results are partial
  try {
    round(std::vector<bool>(platforms.size(), true));
    // A second round where the best changed a platform-wide knob (an attention kind the kernel
    // model finds slow on this accelerator ranks every layout wrongly).
    std::vector<bool> again(platforms.size());
    for (std::size_t i = 0; i < platforms.size(); ++i) again[i] = restart_from_best(platforms[i]);
    if (std::find(again.begin(), again.end(), true) != again.end()) round(again);
    report_best(platforms, req, req.confirm_at_step);
  } catch (const Interrupted& e) {
    // The best of what was simulated, at the search fidelity: nothing more is run.
    stopped = e.what();
    report_best(platforms, req, false);
  }

  std::vector<PlatformResult> results;
  for (auto& p : platforms) {
    p.result.stopped = stopped;
    if (!p.result.best.is_null()) p.result.least_memory = nullptr;
    results.push_back(std::move(p.result));
  }
  return results;
}

}  // namespace clearfog::compare
