// clearfog command line. The only place where exceptions become messages and exit codes:
// 0 success, 1 a simulation or internal error, 2 bad input (configuration or arguments, or a run
// larger than --max-memory allows).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>

#include "app/Command.hpp"
#include "core/Errors.hpp"
#include "core/Interrupt.hpp"

namespace {

/// Help shows each option's captured default ("=1") unless its text already says what the default
/// is (a sentinel such as -1 or 0 means "from the file" or "searched"), or it is an empty list.
void hide_unhelpful_defaults(CLI::App& app) {
  for (CLI::Option* option : app.get_options())
    if (option->get_required() || option->get_description().find("default") != std::string::npos ||
        option->get_default_str() == "[]")
      option->default_str("");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) hide_unhelpful_defaults(*sub);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace clearfog;
  using namespace clearfog::app;
  spdlog::set_default_logger(spdlog::stderr_color_mt("clearfog"));
  spdlog::set_pattern("[%l] %v");

  CLI::App app{"clearfog: a discrete-event simulator of distributed deep-learning training"};
  app.set_version_flag("--version", std::string("clearfog ") + CLEARFOG_VERSION);
  app.require_subcommand(1);
  // Every option's help shows its default ("[1]"); options whose default is a sentinel say what
  // it means in their text and hide the sentinel (default_str("")).
  app.option_defaults()->always_capture_default();
  app.fallthrough();  // global options such as --log-level may follow the subcommand
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

  const std::vector<Command> commands = {
      add_run_command(app),
      add_validate_command(app),
      add_explain_command(app),
      add_collective_command(app),
      add_gemm_command(app),
      add_platform_command(app),
      add_schedule_command(app),
      add_sweep_command(app),
      add_merge_command(app),
      add_compare_command(app),
      add_export_command(app),
      add_report_command(app),
      add_shard_command(app),
      add_cluster_command(app),
      add_stages_command(app),
      add_burst_command(app),
      add_calibrate_command(app),
  };

  hide_unhelpful_defaults(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  spdlog::set_level(spdlog::level::from_str(log_level));

  try {
    for (const auto& c : commands)
      if (*c.subcommand) return c.run();
  } catch (const Interrupted& e) {
    std::cerr << e.what() << '\n';
    return 128 + e.signal();
  } catch (const ConfigError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.str() << '\n';
    return kExitBadInput;
  } catch (const BudgetError& e) {
    std::cerr << "error: " << e.what() << '\n';
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
