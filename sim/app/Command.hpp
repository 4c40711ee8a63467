#pragma once
// A subcommand of the CLI: each lives in its own file and registers its options on the app;
// main() runs the one the user chose. Commands throw; main() maps exceptions to exit codes.
#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/Errors.hpp"

namespace clearfog::app {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

struct Command {
  CLI::App* subcommand = nullptr;
  std::function<int()> run;  // returns the exit code
};

/// --timeout SECONDS of run and sweep: finite and >= 0 (0: no limit); a ConfigError otherwise.
void check_timeout_option(double timeout_s);
/// --max-memory SIZE of run ("8 GB"), B; a ConfigError for a text that is no data size.
double parse_max_memory_option(const std::string& text);
/// What a command does once its --timeout has passed: prints the located error, exits with 2 (the
/// simulation cannot be interrupted; forked simulations die with the process).
[[noreturn]] void exit_on_timeout(const Diagnostic& d);

/// --timeout and --max-memory of the commands that simulate one thing after another (burst, cluster).
struct LimitOptions {
  double timeout_s = 0;
  std::string max_memory;  // data size; empty: the machine's available memory

  void add_to(CLI::App* cmd);
  /// Both checked; the memory limit in B (0: none known).
  [[nodiscard]] double checked_max_memory_B() const;
};

// One function per command file. Options are bound to state the function keeps alive
// (captured in `run`).
Command add_run_command(CLI::App& app);
Command add_validate_command(CLI::App& app);
Command add_explain_command(CLI::App& app);
Command add_collective_command(CLI::App& app);
Command add_gemm_command(CLI::App& app);
Command add_platform_command(CLI::App& app);
Command add_schedule_command(CLI::App& app);
Command add_sweep_command(CLI::App& app);
Command add_merge_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
Command add_export_command(CLI::App& app);
Command add_report_command(CLI::App& app);
Command add_cluster_command(CLI::App& app);
Command add_shard_command(CLI::App& app);
Command add_stages_command(CLI::App& app);
Command add_burst_command(CLI::App& app);
Command add_calibrate_command(CLI::App& app);

}  // namespace clearfog::app
