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
#include "core/DType.hpp"
#include "core/Errors.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedPool.hpp"
#include "report/Summary.hpp"
#include "parallel/MemoryEstimate.hpp"

namespace clearfog::sweep {
namespace {

/// Layouts (tp, pp, dp) whose micro-batch is refined after the first pass at micro-batch 1.
constexpr int kRefinedLayouts = 3;
/// Configurations per platform re-simulated at step fidelity: fluid collectives can rank close
/// configurations differently.
constexpr int kConfirmed = 3;
/// Largest micro-batch tried: beyond it the GEMMs are already large and activations only grow.
constexpr int kMaxMicroBatch = 16;

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

/// The precision to train in: the first of bf16, fp16, fp32 the accelerator has a peak for.
std::string precision_for(const config::AcceleratorSpec& acc) {
  for (auto [d, name] : {std::pair{DType::bf16, "bf16"}, std::pair{DType::fp16, "fp16"}, std::pair{DType::fp32, "fp32"}})
    if (acc.peak_flops.count(d)) return name;
  return "bf16";
}

struct Layout {
  int tp = 1, pp = 1, dp = 1, micro_batch = 1;
  auto operator<=>(const Layout&) const = default;
};

/// One configuration that passed validation and the memory check, waiting to be simulated.
struct Candidate {
  std::size_t platform = 0;
  Layout layout;
  config::ScenarioSpec scenario;
};

struct PlatformState {
  PlatformResult result;
  std::filesystem::path scenario_file;
  std::vector<config::Override> device_override;
  std::set<Layout> seen;
  /// What the child returned for each simulated layout (summary and breakdown).
  std::map<Layout, nlohmann::ordered_json> done;
  std::map<Layout, std::size_t> row;  // index in result.configurations
  double least_memory_B = 0;
};

std::vector<config::Override> layout_overrides(const Layout& l, const std::vector<config::Override>& extra) {
  std::vector<config::Override> o = {{"parallelism.dp", std::to_string(l.dp)},
                                     {"parallelism.tp", std::to_string(l.tp)},
                                     {"parallelism.pp", std::to_string(l.pp)},
                                     {"training.micro_batch", std::to_string(l.micro_batch)}};
  o.insert(o.end(), extra.begin(), extra.end());
  return o;
}

nlohmann::ordered_json memory_json(const parallel::MemoryEstimate& m) {
  return {{"weights_B", m.weights_B},         {"gradients_B", m.gradients_B}, {"optimizer_B", m.optimizer_B},
          {"activations_B", m.activations_B}, {"buffers_B", m.buffers_B},     {"total_B", m.total_B()},
          {"capacity_B", m.capacity_B},       {"fits", m.fits()}};
}

/// Validates and memory-checks a layout; returns the scenario when it is worth simulating.
std::optional<config::ScenarioSpec> admit(PlatformState& p, const Layout& l) {
  if (!p.seen.insert(l).second) return std::nullopt;
  auto& r = p.result;
  ++r.considered;
  p.row[l] = r.configurations.size();
  auto& entry = r.configurations.emplace_back(nlohmann::ordered_json{
      {"tp", l.tp}, {"pp", l.pp}, {"dp", l.dp}, {"micro_batch", l.micro_batch}});
  config::ScenarioSpec scenario;
  try {
    scenario = config::load_scenario(p.scenario_file, layout_overrides(l, p.device_override));
  } catch (const ConfigError& e) {
    ++r.invalid;
    entry["status"] = "invalid";
    std::string message;
    for (const auto& d : e.diagnostics()) message += (message.empty() ? "" : "; ") + d.key + ": " + d.message;
    entry["message"] = message;
    if (r.invalid_example.empty() && !e.diagnostics().empty()) {
      const auto& d = e.diagnostics().front();
      r.invalid_example = fmt::format("tp {} pp {} dp {} micro-batch {}: {}{}{}", l.tp, l.pp, l.dp, l.micro_batch,
                                      d.key, d.key.empty() ? "" : ": ", d.message);
    }
    return std::nullopt;
  }
  const auto memory = parallel::estimate_memory(scenario);
  entry["status"] = memory.fits() ? "ok" : "oom";
  entry["memory"] = memory_json(memory);
  if (!memory.fits()) {
    ++r.oom;
    if (r.least_memory.is_null() || memory.total_B() < p.least_memory_B) {
      p.least_memory_B = memory.total_B();
      r.least_memory = {{"parallelism", {{"tp", l.tp}, {"pp", l.pp}, {"dp", l.dp}, {"micro_batch", l.micro_batch}}},
                        {"memory", memory_json(memory)}};
    }
    return std::nullopt;
  }
  return scenario;
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
    auto& entry = p.result.configurations[p.row.at(candidates[i].layout)];
    if (!outcomes[i].ok) {
      ++p.result.failed;
      entry["status"] = "error";
      entry["message"] = outcomes[i].text;
      if (p.result.failure.empty()) p.result.failure = outcomes[i].text;
      continue;
    }
    auto& j = p.done[candidates[i].layout] = nlohmann::ordered_json::parse(outcomes[i].text);
    entry["step_time_s"] = j.at("summary").at("step_time_s");
  }
}

/// Simulated layouts of a platform, fastest first (ties: the smaller tp, then pp, dp, micro-batch).
std::vector<Layout> ranked(const PlatformState& p) {
  std::vector<std::pair<double, Layout>> v;
  for (const auto& [l, j] : p.done) v.emplace_back(j.at("summary").at("samples_per_s").get<double>(), l);
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Layout> out;
  for (const auto& [rate, l] : v) out.push_back(l);
  return out;
}

/// The global batch: the request's, or 4 x the least common multiple of the device counts when
/// that is an int (a located error otherwise).
int default_global_batch(const CompareRequest& req, const std::vector<config::PlatformSpec>& specs) {
  // Default global batch: 4 x the least common multiple of the device counts, when it is an int.
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
PlatformState platform_state(const CompareRequest& req, const config::PlatformSpec& spec, std::size_t i,
                             const std::filesystem::path& dir, int global_batch) {
  PlatformState p;
  auto& r = p.result;
  r.platform_file = req.platforms[i];
  r.platform = spec.name;
  r.devices = spec.device_count();
  r.power_W = spec.accelerator.power_W * r.devices;
  r.sram_B = spec.accelerator.sram_shared_B;
  r.sram_Bps = spec.accelerator.sram_shared_bandwidth_Bps;
  r.dram_Bps = spec.accelerator.memory_bandwidth_Bps;
  r.global_batch = global_batch;
  p.scenario_file = dir / fmt::format("platform{}.yaml", i);
  if (req.devices) p.device_override.push_back({"platform.node.devices", std::to_string(*req.devices)});
  std::ofstream f(p.scenario_file);
  f << "kind: scenario\nname: compare\n"
    << "platform: " << std::filesystem::absolute(req.platforms[i]).string() << "\n"
    << "workload: " << std::filesystem::absolute(req.workload).string() << "\n"
    << "training:\n  global_batch: " << global_batch << "\n  micro_batch: 1\n"
    << "  precision: " << precision_for(spec.accelerator) << "\n"
    << "collectives:\n  fidelity: " << config::fidelity_name(req.search_fidelity) << "\n";
  return p;
}

/// Each platform's best layout: the fastest of the search, or, with confirm_at_step, the fastest
/// of the few best re-simulated at step fidelity.
void report_best(std::vector<PlatformState>& platforms, const CompareRequest& req) {
  // The fastest few, re-simulated at step fidelity; the fastest of those is reported.
  std::vector<Candidate> finals;
  for (std::size_t i = 0; i < platforms.size(); ++i) {
    auto& p = platforms[i];
    const auto order = ranked(p);
    if (order.empty()) continue;
    const auto& j = p.done.at(order.front());
    p.result.best = j.at("summary");
    p.result.best_breakdown = breakdown_from_json(j.at("breakdown"));
    p.result.fidelity = config::fidelity_name(req.search_fidelity);
    p.result.search_step_s = p.result.best.at("step_time_s").get<double>();
    if (!req.confirm_at_step || req.search_fidelity == config::Fidelity::Step) continue;
    for (std::size_t k = 0; k < order.size() && k < kConfirmed; ++k) {
      auto o = layout_overrides(order[k], p.device_override);
      o.push_back({"collectives.fidelity", "step"});
      finals.push_back({i, order[k], config::load_scenario(p.scenario_file, o)});
    }
  }
  spdlog::info("compare: {} configurations re-simulated at step fidelity", finals.size());
  const auto outcomes = simulate_all(finals, req.jobs);
  std::vector<double> best_step(platforms.size(), 0);
  for (std::size_t k = 0; k < finals.size(); ++k) {
    auto& p = platforms[finals[k].platform];
    auto& r = p.result;
    if (!outcomes[k].ok) {
      spdlog::warn("compare: {}: the step-fidelity run of tp {} pp {} dp {} micro-batch {} failed: {}", r.platform,
                   finals[k].layout.tp, finals[k].layout.pp, finals[k].layout.dp, finals[k].layout.micro_batch,
                   outcomes[k].text);
      continue;
    }
    const auto j = nlohmann::ordered_json::parse(outcomes[k].text);
    const double step = j.at("summary").at("step_time_s").get<double>();
    if (best_step[finals[k].platform] > 0 && step >= best_step[finals[k].platform]) continue;
    best_step[finals[k].platform] = step;
    r.best = j.at("summary");
    r.best_breakdown = breakdown_from_json(j.at("breakdown"));
    r.fidelity = "step";
    r.search_step_s = p.done.at(finals[k].layout).at("summary").at("step_time_s").get<double>();
  }
}

}  // namespace

std::vector<PlatformResult> compare_platforms(const CompareRequest& req) {
  // One scenario file per platform in a private temp directory, with absolute paths.
  std::string dir_template = (std::filesystem::temp_directory_path() / "clearfog-compare-XXXXXX").string();
  if (::mkdtemp(dir_template.data()) == nullptr) throw Error("cannot create a temporary directory");
  const std::filesystem::path dir = dir_template;
  struct RemoveDir {
    std::filesystem::path dir;
    ~RemoveDir() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};

  // A bad workload or platform file is the user's mistake, not a refused configuration: load them
  // first so that it surfaces as a ConfigError with its location.
  config::load_workload(req.workload);
  std::vector<PlatformState> platforms;
  std::vector<config::PlatformSpec> specs;
  for (const auto& file : req.platforms) {
    std::vector<config::Override> o;
    if (req.devices) o.push_back({"node.devices", std::to_string(*req.devices)});
    specs.push_back(config::load_platform(file, o));
  }
  const int global_batch = default_global_batch(req, specs);

  for (std::size_t i = 0; i < specs.size(); ++i)
    platforms.push_back(platform_state(req, specs[i], i, dir, global_batch));

  // Pass 1: every layout at micro-batch 1 (or the fixed one).
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < platforms.size(); ++i) {
    const int devices = platforms[i].result.devices;
    for (int tp : divisors(devices))
      for (int pp : divisors(devices / tp)) {
        const Layout l{tp, pp, devices / tp / pp, req.micro_batch.value_or(1)};
        if (auto s = admit(platforms[i], l)) candidates.push_back({i, l, std::move(*s)});
      }
  }
  spdlog::info("compare: {} candidates at micro-batch {}", candidates.size(), req.micro_batch.value_or(1));
  record(platforms, candidates, simulate_all(candidates, req.jobs));

  // Pass 2: larger micro-batches for the best layouts (bigger GEMMs, fewer ops; more activations
  // and, pipelined, fewer micro-batches to fill the bubble).
  if (!req.micro_batch) {
    candidates.clear();
    for (std::size_t i = 0; i < platforms.size(); ++i) {
      const auto order = ranked(platforms[i]);
      for (std::size_t k = 0; k < order.size() && k < kRefinedLayouts; ++k) {
        const Layout base = order[k];
        const int per_replica = global_batch / base.dp;
        for (int mb = 2; mb <= std::min(per_replica, kMaxMicroBatch); mb *= 2) {
          Layout l = base;
          l.micro_batch = mb;
          if (auto s = admit(platforms[i], l)) candidates.push_back({i, l, std::move(*s)});
        }
      }
    }
    spdlog::info("compare: {} candidates with larger micro-batches", candidates.size());
    record(platforms, candidates, simulate_all(candidates, req.jobs));
  }

  report_best(platforms, req);

  std::vector<PlatformResult> results;
  for (auto& p : platforms) {
    if (!p.result.best.is_null()) p.result.least_memory = nullptr;
    results.push_back(std::move(p.result));
  }
  return results;
}

}  // namespace clearfog::sweep
