// `clearfog run SCENARIO`: simulate one training iteration and print its summary.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>

#include "app/Command.hpp"
#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"
#include "core/OutputPaths.hpp"
#include "driver/ResourceEstimate.hpp"
#include "driver/ScenarioRun.hpp"
#include "report/ChromeTrace.hpp"
#include "report/CollectiveTable.hpp"
#include "report/CommProfile.hpp"
#include "report/CsvTables.hpp"
#include "report/HtmlReport.hpp"
#include "report/OpTable.hpp"
#include "report/Summary.hpp"
#include "report/TimelineSvg.hpp"
#include "topology/ClusterTopology.hpp"
#include "topology/PlatformInfo.hpp"

namespace clearfog::app {
namespace {

// Platform analysis (bisection, ring order) is quadratic in places; past this it is left out.
constexpr int kHtmlPlatformMaxDevices = 4096;

std::string read_text(const std::string& file) {
  std::ifstream f(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string html_report_page(const config::ScenarioSpec& scenario, const driver::ScenarioRun& run,
                             const std::vector<std::string>& sets) {
  std::string inputs = "# " + scenario.file + "\n" + read_text(scenario.file);
  for (const auto& s : sets) inputs += "--set " + s + "\n";
  std::string platform;
  if (scenario.platform.device_count() <= kHtmlPlatformMaxDevices) {
    const auto cluster = topology::ClusterTopology::build(scenario.platform);
    platform = topology::render_platform_info(topology::analyse_platform(cluster), scenario.platform);
  }
  return report::html_report({scenario, run.metrics, run.step.plan, run.simulation, *run.collectives,
                              report::render_summary_text(scenario, run.metrics), platform, inputs});
}

}  // namespace

Command add_run_command(CLI::App& app) {
  struct Options {
    std::string scenario_file;
    std::vector<std::string> sets;
    std::string format = "text";
    bool ops = false;
    std::string trace_file;     // Chrome trace-event JSON
    std::string trace_ranks;    // --trace-ranks: the devices the trace keeps ("" = all)
    std::string timeline_file;  // SVG Gantt chart
    std::string html_file;      // self-contained HTML report
    std::string csv_dir;        // ops.csv and devices.csv
    std::string comm_dir;       // communication profile
    driver::RunOptions run;
    std::string max_memory;     // data size; empty: the machine's available memory
    double timeout_s = 0;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("run", "simulate one training iteration of a scenario and print a summary");
  cmd->add_option("scenario", o->scenario_file, "scenario YAML file")->required();
  cmd->add_option("--set", o->sets, "override a key, e.g. --set training.global_batch=512 (repeatable)");
  cmd->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--ops", o->ops,
                "also print every kernel of the iteration as the kernel model priced it, and the algorithm, "
                "protocol and channels of its collectives");
  auto* trace = cmd->add_option("--trace", o->trace_file, "write a Chrome/Perfetto trace of the iteration to FILE.json");
  cmd->add_option("--trace-ranks", o->trace_ranks,
                  "keep only these devices in the --trace file: ranks and ranges, e.g. 0-7,64")
      ->needs(trace);
  cmd->add_option("--timeline", o->timeline_file, "write an SVG timeline (Gantt chart) of the iteration to FILE.svg");
  cmd->add_option("--csv", o->csv_dir, "write ops.csv, devices.csv and collectives.csv to DIR");
  cmd->add_option("--html", o->html_file,
                  "write a self-contained HTML report (summary, time breakdown, memory, zoomable timeline, "
                  "communication profile, platform, inputs) to FILE.html");
  cmd->add_option("--comm-profile", o->comm_dir,
                  "write the communication profile to DIR: comm.csv (every collective and pipeline message), "
                  "comm-summary.txt (per parallel axis), comm-sizes.svg (message sizes)");
  cmd->add_flag("--no-symmetry", [o](std::int64_t) { o->run.replay.symmetry = false; },
                "replay every rank, even where data- or tensor-parallel ranks are proven isomorphic");
  cmd->add_option("--max-memory", o->max_memory,
                  "refuse a run whose estimated memory exceeds SIZE, e.g. 8 GB (default: the available memory)");
  cmd->add_option("--timeout", o->timeout_s, "seconds the run may take before it is stopped (0: no limit)");
  // Hidden: the actor-based replay, kept to compare against until it is removed.
  cmd->add_flag("--legacy-replay", o->run.legacy_replay)->group("");
  return {cmd, [o] {
            check_timeout_option(o->timeout_s);
            o->run.max_memory_bytes = o->max_memory.empty() ? driver::available_memory_bytes()
                                                            : parse_max_memory_option(o->max_memory);
            std::vector<config::Override> overrides;
            for (const auto& s : o->sets) overrides.push_back(config::parse_override(s));
            const auto scenario = config::load_scenario(o->scenario_file, overrides);
            // Output paths are checked before the simulation, which may take minutes.
            if (!o->trace_file.empty()) check_output_file(o->trace_file, "--trace");
            const auto trace_ranks = o->trace_ranks.empty()
                                         ? report::TraceRanks{}
                                         : report::parse_trace_ranks(o->trace_ranks, scenario.platform.device_count());
            if (!o->timeline_file.empty()) check_output_file(o->timeline_file, "--timeline");
            if (!o->html_file.empty()) check_output_file(o->html_file, "--html");
            if (!o->csv_dir.empty()) prepare_output_directory(o->csv_dir, "--csv");
            if (!o->comm_dir.empty()) prepare_output_directory(o->comm_dir, "--comm-profile");
            const auto start = std::chrono::steady_clock::now();
            // Progress every 5 s on stderr; past --timeout, the located error and exit 2.
            driver::RunWatch watch(o->timeout_s, 5.0, exit_on_timeout);
            o->run.watch = &watch;
            const auto run = driver::run_scenario(scenario, o->run);
            const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (o->format == "json") {
              auto j = report::summary_json(scenario, run.metrics);
              j["simulation"]["replay"] = report::replay_json(run.simulation.replay);
              if (o->ops) {
                j["kernels"] = report::op_table_json(scenario, run.step);
                j["collectives"] = report::collective_table_json(*run.collectives);
              }
              std::cout << j.dump(2) << '\n';
            } else {
              std::cout << report::render_summary_text(scenario, run.metrics)
                        << report::render_replay_text(run.simulation.replay);
              if (o->ops)
                std::cout << report::render_op_table(scenario, run.step)
                          << report::render_collective_table(*run.collectives);
            }
            auto write = [](const std::string& file, const std::string& text) {
              std::ofstream f(file, std::ios::binary);
              f << text;
              if (!f) throw Error(fmt::format("cannot write {}", file));
            };
            // Reducing switches are plan ranks after the devices, not devices: outputs stop before them.
            const int devices = scenario.platform.device_count();
            if (!o->trace_file.empty())
              write(o->trace_file,
                    report::chrome_trace_json(run.step.plan, run.simulation, devices, run.collectives.get(), trace_ranks)
                            .dump() +
                        "\n");
            if (!o->timeline_file.empty())
              write(o->timeline_file, report::timeline_svg(run.step.plan, run.simulation, scenario.name, devices));
            if (!o->html_file.empty()) write(o->html_file, html_report_page(scenario, run, o->sets));
            if (!o->csv_dir.empty())
              report::write_csv_tables(o->csv_dir, run.step.plan, run.simulation, devices, run.collectives.get());
            if (!o->comm_dir.empty())
              report::write_comm_profile(o->comm_dir,
                                         report::build_comm_profile(run.step.plan, run.simulation, *run.collectives,
                                                                    devices, scenario.parallelism.zero_stage),
                                         scenario.name);
            // Wall-clock figures go to the log, never to stdout, so outputs stay byte-identical.
            spdlog::info("simulated {} ops, {} messages in {:.3f} s wall ({:.0f} ops/s)",
                         run.simulation.ops_executed, run.simulation.messages, wall_s,
                         static_cast<double>(run.simulation.ops_executed) / std::max(wall_s, 1e-9));
            return kExitOk;
          }};
}

}  // namespace clearfog::app
