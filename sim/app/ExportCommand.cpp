// `clearfog export chakra SCENARIO --out DIR`: the scenario's planned iteration as Chakra
// execution traces, one per rank (docs/interop.md), for ASTRA-sim and Chakra's tools.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "app/Command.hpp"
#include "config/ConfigLoader.hpp"
#include "core/OutputPaths.hpp"
#include "driver/ScenarioRun.hpp"
#include "interop/ChakraExport.hpp"

namespace clearfog::app {

Command add_export_command(CLI::App& app) {
  struct Options {
    std::string scenario_file;
    std::vector<std::string> sets;
    std::string out_dir;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("export", "write a scenario's planned iteration in another tool's format");
  cmd->require_subcommand(1);
  auto* chakra =
      cmd->add_subcommand("chakra", "one Chakra execution trace per device, DIR/et.<rank>.et (docs/interop.md)");
  chakra->add_option("scenario", o->scenario_file, "scenario YAML file")->required();
  chakra->add_option("--set", o->sets, "override a key, e.g. --set parallelism.dp=4 (repeatable)");
  chakra->add_option("--out", o->out_dir, "directory to write the traces to (created if missing)")->required();
  return {cmd, [o] {
            std::vector<config::Override> overrides;
            for (const auto& s : o->sets) overrides.push_back(config::parse_override(s));
            const auto scenario = config::load_scenario(o->scenario_file, overrides);
            prepare_output_directory(o->out_dir, "--out");
            const auto plan = driver::plan_scenario(scenario);
            const auto summary = interop::export_chakra(plan.step, *plan.collectives, scenario.platform.device_count(),
                                                                o->out_dir, scenario.name);
            std::cout << fmt::format("wrote {} Chakra traces ({} nodes) to {}\n", summary.files, summary.nodes,
                                     o->out_dir);
            return kExitOk;
          }};
}

}  // namespace clearfog::app
