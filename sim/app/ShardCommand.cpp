// `clearfog shard`: the fastest embedding-table sharding of a DLRM scenario, the planner's pick
// checked against simulated alternatives (docs/dlrm.md, "Choosing the sharding").
#include <iostream>

#include <fmt/format.h>

#include "app/Command.hpp"
#include "config/ConfigLoader.hpp"
#include "config/Override.hpp"
#include "config/WorkloadTypeSchema.hpp"
#include "config/YamlFile.hpp"
#include "core/Errors.hpp"
#include "shard/ShardSearch.hpp"

namespace clearfog::app {
namespace {

/// A scenario whose workload is not a DLRM: the error points at its `workload:` key.
[[noreturn]] void refuse_workload(const std::string& file, const config::ScenarioSpec& scenario) {
  std::vector<Diagnostic> unused;
  SourceLocation where{file, 1, 1};
  if (const auto doc = config::read_yaml_file(file, std::nullopt, unused); doc && (*doc)["workload"])
    where = config::location_of((*doc)["workload"].Mark(), file, where);
  throw ConfigError({{where, "workload",
                      fmt::format("clearfog shard searches the table sharding of a dlrm workload; '{}' is a {} "
                                  "workload (allowed: a workload file of type dlrm)",
                                  scenario.workload.name, scenario.workload.type)}});
}

}  // namespace

Command add_shard_command(CLI::App& app) {
  struct Options {
    std::string scenario;
    std::vector<std::string> sets;
    bool exhaustive = false;
    std::uint64_t max_plans = 1000;
    int jobs = 1;
    std::size_t top = 10;
    std::string format = "text";
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "shard", "find the fastest embedding-table sharding of a DLRM scenario: the planner's pick, baselines and "
               "(--exhaustive) every plan, simulated and ranked");
  cmd->add_option("scenario", o->scenario, "scenario YAML file with a dlrm workload")->required();
  cmd->add_option("--set", o->sets, "override a key, e.g. --set training.micro_batch=2048 (repeatable)");
  cmd->add_flag("--exhaustive", o->exhaustive,
                "also simulate every plan of the exhaustive space (each table table-wise on any device, row-wise, "
                "column-wise or data parallel; interchangeable devices counted once)");
  cmd->add_option("--max-plans", o->max_plans, "largest exhaustive space simulated (default 1000)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1000000}));
  cmd->add_option("--jobs,-j", o->jobs, "plans simulated at the same time")->check(CLI::Range(1, 256));
  cmd->add_option("--top", o->top, "plans listed (default 10; the pick is always listed)")->check(CLI::Range(1, 100000));
  cmd->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {cmd, [o] {
            std::vector<config::Override> overrides;
            for (const auto& s : o->sets) overrides.push_back(config::parse_override(s));
            shard::ShardSearchRequest req;
            req.scenario = config::load_scenario(o->scenario, overrides);
            if (!config::workload_traits(req.scenario.workload.type).embedding_tables) refuse_workload(o->scenario, req.scenario);
            req.exhaustive = o->exhaustive;
            req.max_plans = o->max_plans;
            req.jobs = o->jobs;
            const auto result = shard::search_shardings(req);
            if (o->format == "json")
              std::cout << shard::shard_search_json(result).dump(2) << '\n';
            else
              std::cout << shard::render_shard_search(result, o->top);
            return kExitOk;
          }};
}

}  // namespace clearfog::app
