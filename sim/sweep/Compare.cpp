#include "sweep/Compare.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <numeric>

#include "config/ConfigLoader.hpp"
#include "core/DType.hpp"
#include "core/Errors.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "report/Summary.hpp"

namespace clearfog::sweep {
namespace {

/// Exposed communication above this share of the step makes the interconnect the bound.
constexpr double kInterconnectBoundShare = 0.25;

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

double at_or(const nlohmann::ordered_json& j, const char* a, const char* b, double fallback = 0) {
  if (!j.contains(a)) return fallback;
  if (b == nullptr) return j.at(a).get<double>();
  return j.at(a).contains(b) ? j.at(a).at(b).get<double>() : fallback;
}

}  // namespace

std::string dominant_bound(const nlohmann::ordered_json& s) {
  if (s.is_null()) return "-";
  if (s.contains("memory") && !s.at("memory").value("fits", true)) return "memory capacity";
  const double step = at_or(s, "step_time_s", nullptr);
  if (step > 0 && at_or(s, "communication", "exposed_s") / step > kInterconnectBoundShare) return "interconnect";
  return "compute";
}

std::vector<PlatformResult> compare_platforms(const CompareRequest& req) {
  std::vector<PlatformResult> results;
  // One scenario file per platform in a private temp directory, with absolute paths.
  std::string dir_template = (std::filesystem::temp_directory_path() / "clearfog-compare-XXXXXX").string();
  if (::mkdtemp(dir_template.data()) == nullptr) throw Error("cannot create a temporary directory");
  const std::filesystem::path dir = dir_template;

  std::vector<int> device_counts;
  std::vector<config::PlatformSpec> specs;
  for (const auto& file : req.platforms) {
    std::vector<config::Override> o;
    if (req.devices) o.push_back({"node.devices", std::to_string(*req.devices)});
    specs.push_back(config::load_platform(file, o));
    device_counts.push_back(specs.back().device_count());
  }
  int lcm = 1;
  for (int d : device_counts) lcm = std::lcm(lcm, d);
  const int global_batch = req.global_batch.value_or(4 * lcm);

  for (std::size_t i = 0; i < req.platforms.size(); ++i) {
    PlatformResult r;
    r.platform_file = req.platforms[i];
    r.platform = specs[i].name;
    r.devices = device_counts[i];
    r.power_W = specs[i].accelerator.power_W * r.devices;
    const auto scenario_file = dir / fmt::format("platform{}.yaml", i);
    {
      std::ofstream f(scenario_file);
      f << "kind: scenario\nname: compare\n"
        << "platform: " << std::filesystem::absolute(req.platforms[i]).string() << "\n"
        << "workload: " << std::filesystem::absolute(req.workload).string() << "\n"
        << "training:\n  global_batch: " << global_batch << "\n  micro_batch: " << req.micro_batch
        << "\n  precision: " << precision_for(specs[i].accelerator) << "\n";
    }
    double best_rate = -1;
    bool best_fits = false;
    for (int tp : divisors(r.devices))
      for (int pp : divisors(r.devices / tp)) {
        const int dp = r.devices / tp / pp;
        std::vector<config::Override> o = {{"parallelism.dp", std::to_string(dp)},
                                           {"parallelism.tp", std::to_string(tp)},
                                           {"parallelism.pp", std::to_string(pp)}};
        if (req.devices) o.push_back({"platform.node.devices", std::to_string(*req.devices)});
        config::ScenarioSpec scenario;
        try {
          scenario = config::load_scenario(scenario_file, o);
        } catch (const ConfigError& e) {
          ++r.rejected;
          if (r.error.empty() && !e.diagnostics().empty()) r.error = e.diagnostics().front().str();
          continue;
        }
        ++r.tried;
        nlohmann::ordered_json summary;
        try {
          summary = nlohmann::ordered_json::parse(engine::run_forked([&] {
            const auto run = driver::run_scenario(scenario);
            return report::summary_json(scenario, run.metrics).dump();
          }));
        } catch (const std::exception& e) {
          r.error = e.what();
          continue;
        }
        const bool fits = summary.at("memory").at("fits").get<bool>();
        const double rate = summary.at("samples_per_s").get<double>();
        if ((fits && !best_fits) || (fits == best_fits && rate > best_rate)) {
          r.best = summary;
          best_rate = rate;
          best_fits = fits;
        }
      }
    if (!r.best.is_null()) r.error.clear();
    results.push_back(std::move(r));
  }
  std::filesystem::remove_all(dir);
  return results;
}

std::string render_comparison(const CompareRequest& req, const std::vector<PlatformResult>& results) {
  std::string o = fmt::format("Workload {} — best parallelism per platform (fastest that fits in memory)\n\n",
                              req.workload.filename().string());
  o += fmt::format("{:<40} {:>7} {:>12} {:>11} {:>14} {:>14} {:>7} {:>22}  {}\n", "platform", "devices",
                   "dp x tp x pp", "step time", "samples/s/dev", "samples/s/kW", "MFU", "memory/device", "bound");
  for (const auto& r : results) {
    if (r.best.is_null()) {
      o += fmt::format("{:<40} {:>7}  no configuration ran: {}\n", r.platform, r.devices, r.error);
      continue;
    }
    const auto& s = r.best;
    const auto& par = s.at("parallelism");
    const double rate = s.at("samples_per_s").get<double>();
    const auto& mem = s.at("memory");
    o += fmt::format("{:<40} {:>7} {:>12} {:>9.4g} s {:>14.3g} {:>14} {:>6.1f}% {:>22}  {}\n", r.platform.substr(0, 40),
                     r.devices,
                     fmt::format("{}x{}x{}", par.at("dp").get<int>(), par.at("tp").get<int>(), par.at("pp").get<int>()),
                     s.at("step_time_s").get<double>(), rate / r.devices,
                     r.power_W > 0 ? fmt::format("{:.3g}", rate / (r.power_W / 1e3)) : std::string("n/a"),
                     100 * s.at("mfu").get<double>(),
                     fmt::format("{:.1f}/{:.1f} GB {}", mem.at("total_B").get<double>() / 1e9,
                                 mem.at("capacity_B").get<double>() / 1e9, mem.at("fits").get<bool>() ? "fits" : "OOM"),
                     dominant_bound(s));
  }
  o += "\nsamples/s/kW uses the accelerators' peak power (power.peak) times the devices; configurations\n"
       "the validator refuses (e.g. tp or pp > 1 where not yet simulated) are skipped.\n";
  return o;
}

CompareRequest load_compare_file(const std::filesystem::path& file) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    throw ConfigError({{{file.string(), e.mark.line + 1, e.mark.column + 1}, "", e.what()}});
  }
  const auto dir = std::filesystem::absolute(file).parent_path();
  std::vector<Diagnostic> errors;
  auto where = [&](const YAML::Node& n) {
    return SourceLocation{file.string(), n.IsDefined() ? n.Mark().line + 1 : 0, n.IsDefined() ? n.Mark().column + 1 : 0};
  };
  for (const auto& kv : root) {
    const auto k = kv.first.as<std::string>();
    if (k != "kind" && k != "name" && k != "description" && k != "workload" && k != "platforms" && k != "devices" &&
        k != "global_batch" && k != "micro_batch")
      errors.push_back({where(kv.first), k,
                        "unknown key; known: kind, name, description, workload, platforms, devices, global_batch, micro_batch"});
  }
  CompareRequest req;
  if (!root["workload"] || !root["workload"].IsScalar())
    errors.push_back({where(root), "workload", "missing: the workload file"});
  else
    req.workload = (dir / root["workload"].Scalar()).lexically_normal();
  if (!root["platforms"] || !root["platforms"].IsSequence())
    errors.push_back({where(root), "platforms", "missing: a list of platform files"});
  else
    for (const auto& p : root["platforms"]) req.platforms.push_back((dir / p.as<std::string>()).lexically_normal());
  try {
    if (root["devices"]) req.devices = root["devices"].as<int>();
    if (root["global_batch"]) req.global_batch = root["global_batch"].as<int>();
    if (root["micro_batch"]) req.micro_batch = root["micro_batch"].as<int>();
  } catch (const YAML::Exception& e) {
    errors.push_back({{file.string(), e.mark.line + 1, e.mark.column + 1}, "", "must be an integer"});
  }
  if (!errors.empty()) throw ConfigError(std::move(errors));
  return req;
}

}  // namespace clearfog::sweep
