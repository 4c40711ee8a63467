// `clearfog burst SCENARIO --devices 8,16,32,64 [--background WORKLOAD]`: DeepPool's burst
// parallelism and GPU multiplexing against plain data parallelism at the scenario's fixed global
// batch, every variant simulated (docs/burst-parallelism.md).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/Command.hpp"
#include "config/Override.hpp"
#include "core/Errors.hpp"
#include "core/OutputPaths.hpp"
#include "driver/RunWatch.hpp"
#include "burst/BurstRun.hpp"

namespace clearfog::app {
namespace {

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream f(file, std::ios::binary);
  f << text;
  if (!f) throw Error(fmt::format("cannot write {}", file.string()));
}

/// DIR/dp-N.svg and DIR/burst-N.svg per budget N: the variants with the background, if any.
void write_timelines(const std::filesystem::path& dir, const burst::BurstResult& result) {
  const bool background = !result.background.empty();
  for (const auto& p : result.points) {
    write_text(dir / fmt::format("dp-{}.svg", p.devices), (background ? p.dp_background : p.dp).timeline_svg);
    write_text(dir / fmt::format("burst-{}.svg", p.devices),
               (background ? p.burst_background : p.burst).timeline_svg);
  }
}

}  // namespace

Command add_burst_command(CLI::App& app) {
  struct Options {
    burst::BurstOptions burst;
    std::vector<std::string> sets;
    std::optional<std::string> background;
    std::string format = "text";
    std::string timeline_dir;
    LimitOptions limits;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("burst",
                                 "burst parallelism (per-layer device counts) and a background job multiplexed on "
                                 "the devices, against plain data parallelism at the scenario's global batch");
  cmd->add_option("scenario", o->burst.scenario, "scenario YAML file (its workload, platform and global batch)")
      ->required();
  cmd->add_option("--devices", o->burst.devices, "device budgets, e.g. 8,16,32,64")->delimiter(',')->required();
  cmd->add_option("--amplification", o->burst.amplification_limit,
                  "most device-seconds a layer may take over its one-device time (default 2, DeepPool's)");
  cmd->add_option("--background", o->background, "workload YAML trained alone on every device at low priority");
  cmd->add_option("--background-batch", o->burst.background_batch, "the background job's batch (default 32)");
  cmd->add_option("--iterations", o->burst.iterations, "foreground iterations simulated (default 3)");
  cmd->add_option("--set", o->sets, "override a key of the scenario, as in run (repeatable)");
  cmd->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--timeline", o->timeline_dir,
                  "write DIR/dp-N.svg and DIR/burst-N.svg: each budget's simulated iterations as a timeline (with "
                  "the background, if any)");
  o->limits.add_to(cmd);
  return {cmd, [o] {
            auto options = o->burst;
            options.replay.max_memory_B = o->limits.checked_max_memory_B();
            // Progress every 5 s on stderr: the budget and variant being simulated.
            driver::RunWatch watch(o->limits.timeout_s, 5.0, exit_on_timeout, "burst");
            options.progress = [&watch](const std::string& what) { watch.phase(what); };
            for (const auto& s : o->sets) options.sets.push_back(config::parse_override(s));
            options.background = o->background;
            options.timelines = !o->timeline_dir.empty();
            if (options.timelines) prepare_output_directory(o->timeline_dir, "--timeline");
            const auto result = burst::run_burst(options);
            if (options.timelines) write_timelines(o->timeline_dir, result);
            if (o->format == "json")
              std::cout << burst::burst_json(result).dump(2) << '\n';
            else
              std::cout << burst::render_burst_text(result);
            return kExitOk;
          }};
}

}  // namespace clearfog::app
