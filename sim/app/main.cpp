// clearfog command line. The only place where exceptions become messages and exit codes:
// 0 success, 1 a simulation or internal error, 2 bad input (configuration or arguments).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <iostream>

#include "config/ConfigLoader.hpp"
#include "config/ConfigReference.hpp"
#include "core/Errors.hpp"
#include "driver/ScenarioRun.hpp"
#include "report/Summary.hpp"

namespace {

using namespace clearfog;

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

std::vector<config::Override> parse_overrides(const std::vector<std::string>& sets) {
  std::vector<config::Override> overrides;
  for (const auto& s : sets) overrides.push_back(config::parse_override(s));
  return overrides;
}

int run_command(const std::string& scenario_file, const std::vector<std::string>& sets, const std::string& format) {
  const auto scenario = config::load_scenario(scenario_file, parse_overrides(sets));
  const auto start = std::chrono::steady_clock::now();
  const auto run = driver::run_scenario(scenario);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (format == "json")
    std::cout << report::summary_json(scenario, run.metrics).dump(2) << '\n';
  else
    std::cout << report::render_summary_text(scenario, run.metrics);
  // Wall-clock figures go to the log, never to stdout, so outputs stay byte-identical.
  spdlog::info("simulated {} ops, {} messages in {:.3f} s wall ({:.0f} ops/s)", run.simulation.ops_executed,
               run.simulation.messages, wall_s, static_cast<double>(run.simulation.ops_executed) / std::max(wall_s, 1e-9));
  return kExitOk;
}

int validate_command(const std::vector<std::string>& files) {
  std::vector<Diagnostic> all;
  for (const auto& f : files) {
    try {
      config::validate_file(f);
      std::cout << f << ": ok\n";
    } catch (const ConfigError& e) {
      all.insert(all.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!all.empty()) throw ConfigError(all);
  return kExitOk;
}

int explain_command(const std::string& kind, bool markdown) {
  if (kind == "all") {
    if (markdown) {
      std::cout << config::configuration_reference_markdown();
    } else {
      for (config::DocumentKind k : config::kAllDocumentKinds)
        std::cout << config::render_key_table(k, false) << '\n';
    }
    return kExitOk;
  }
  // CLI11 has already restricted `kind` to the known names.
  std::cout << config::render_key_table(*config::parse_kind(kind), markdown);
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("clearfog");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%l] %v");

  CLI::App app{"clearfog: a discrete-event simulator of distributed deep-learning training"};
  app.set_version_flag("--version", std::string("clearfog ") + CLEARFOG_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // global options such as --log-level may follow the subcommand
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

  std::string scenario_file;
  std::vector<std::string> sets;
  std::string format = "text";
  auto* run = app.add_subcommand("run", "simulate one training iteration of a scenario and print a summary");
  run->add_option("scenario", scenario_file, "scenario YAML file")->required();
  run->add_option("--set", sets, "override a key, e.g. --set training.global_batch=512 (repeatable)");
  run->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));

  std::vector<std::string> files;
  auto* validate = app.add_subcommand("validate", "check accelerator, platform, workload or scenario files");
  validate->add_option("files", files, "YAML files")->required();

  std::string kind = "all";
  bool markdown = false;
  auto* explain = app.add_subcommand("explain", "print the keys of a kind of file: type, unit, default, meaning");
  explain->add_option("kind", kind, "accelerator, platform, workload, scenario or all")
      ->check(CLI::IsMember({"accelerator", "platform", "workload", "scenario", "all"}));
  explain->add_flag("--markdown", markdown, "print Markdown (docs/configuration.md is this output for 'all')");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  spdlog::set_level(spdlog::level::from_str(log_level));

  try {
    if (*run) return run_command(scenario_file, sets, format);
    if (*validate) return validate_command(files);
    if (*explain) return explain_command(kind, markdown);
  } catch (const ConfigError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.str() << '\n';
    return kExitBadInput;
  } catch (const SimulationError& e) {
    std::cerr << "simulation error: " << e.what() << '\n';
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return kExitFailure;
  }
  return kExitFailure;
}
