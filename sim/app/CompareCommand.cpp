// `clearfog compare`: one workload on several platforms, each with its best parallelism, side by side.
#include <iostream>

#include "app/Command.hpp"
#include "core/Errors.hpp"
#include "sweep/Compare.hpp"

namespace clearfog::app {

Command add_compare_command(CLI::App& app) {
  struct Options {
    std::string file;
    std::string workload;
    std::vector<std::string> platforms;
    int devices = 0;
    int global_batch = 0;
    int micro_batch = 1;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("compare", "compare platforms on one workload, each with its best parallelism");
  cmd->add_option("file", o->file, "comparison YAML file (scenarios/compare/); or give --workload and --platforms");
  cmd->add_option("--workload", o->workload, "workload YAML file");
  cmd->add_option("--platforms", o->platforms, "platform YAML files");
  cmd->add_option("--devices", o->devices, "devices per platform (overrides node.devices)")->check(CLI::PositiveNumber);
  cmd->add_option("--global-batch", o->global_batch, "sequences per iteration (default: 4 x lcm of device counts)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--micro-batch", o->micro_batch, "sequences per forward/backward pass")->check(CLI::PositiveNumber);
  return {cmd, [o] {
            sweep::CompareRequest req;
            if (!o->file.empty()) req = sweep::load_compare_file(o->file);
            if (!o->workload.empty()) req.workload = o->workload;
            if (!o->platforms.empty()) req.platforms.assign(o->platforms.begin(), o->platforms.end());
            if (o->devices > 0) req.devices = o->devices;
            if (o->global_batch > 0) req.global_batch = o->global_batch;
            if (o->micro_batch > 1) req.micro_batch = o->micro_batch;
            if (req.workload.empty() || req.platforms.empty())
              throw ConfigError({{{"compare", 0, 0}, "", "needs a comparison file or --workload and --platforms"}});
            std::cout << sweep::render_comparison(req, sweep::compare_platforms(req));
            return kExitOk;
          }};
}

}  // namespace clearfog::app
