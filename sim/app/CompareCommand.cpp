// `clearfog compare`: one workload on several platforms, each with its best parallelism, side by side.
#include <iostream>

#include "app/Command.hpp"
#include <fmt/format.h>

#include "config/ScaleLimits.hpp"
#include "core/Errors.hpp"
#include "sweep/Compare.hpp"
#include "sweep/CompareTable.hpp"

namespace clearfog::app {

Command add_compare_command(CLI::App& app) {
  struct Options {
    std::string file;
    std::string workload;
    std::vector<std::string> platforms;
    int devices = 0;
    int global_batch = 0;
    int micro_batch = 0;
    int jobs = 1;
    bool no_confirm = false;
    std::string format = "text";
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("compare", "compare platforms on one workload, each with its best parallelism");
  cmd->add_option("file", o->file, "comparison YAML file (scenarios/compare/); or give --workload and --platforms");
  cmd->add_option("--workload", o->workload, "workload YAML file");
  cmd->add_option("--platforms", o->platforms, "platform YAML files");
  cmd->add_option("--devices", o->devices, "devices per platform (overrides node.devices)")->check(CLI::PositiveNumber);
  cmd->add_option("--global-batch", o->global_batch, "sequences per iteration (default: 4 x lcm of device counts)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--micro-batch", o->micro_batch, "fixed micro-batch (default: searched over 1, 2, 4, ... 16)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--jobs,-j", o->jobs, "configurations simulated at the same time")->check(CLI::Range(1, 256));
  cmd->add_flag("--no-confirm", o->no_confirm,
                "report the winners at the search's fluid fidelity instead of re-simulating them at step fidelity");
  cmd->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {cmd, [o] {
            sweep::CompareRequest req;
            if (!o->file.empty()) req = sweep::load_compare_file(o->file);
            if (!o->workload.empty()) req.workload = o->workload;
            if (!o->platforms.empty()) req.platforms.assign(o->platforms.begin(), o->platforms.end());
            if (o->devices > config::kMaxNodeDevices)
              throw ConfigError({{{"--devices", 0, 0}, "",
                                  fmt::format("{} is too many: {}", o->devices,
                                              config::over_limit_text(o->devices, config::kMaxNodeDevices,
                                                                      "devices per node",
                                                                      config::find_key_limit(config::DocumentKind::Platform,
                                                                                             "node.devices")
                                                                          ->cost))}});
            if (o->devices > 0) req.devices = o->devices;
            if (o->global_batch > 0) req.global_batch = o->global_batch;
            if (o->micro_batch > 0) req.micro_batch = o->micro_batch;
            req.jobs = o->jobs;
            req.confirm_at_step = !o->no_confirm;
            if (req.workload.empty() || req.platforms.empty())
              throw ConfigError({{{"compare", 0, 0}, "", "needs a comparison file or --workload and --platforms"}});
            const auto results = sweep::compare_platforms(req);
            if (o->format == "json")
              std::cout << sweep::comparison_json(req, results).dump(2) << '\n';
            else
              std::cout << sweep::render_comparison(req, results);
            return kExitOk;
          }};
}

}  // namespace clearfog::app
