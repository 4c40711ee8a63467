#pragma once
// A subcommand of the CLI: each lives in its own file and registers its options on the app;
// main() runs the one the user chose. Commands throw; main() maps exceptions to exit codes.
#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

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

}  // namespace clearfog::app
