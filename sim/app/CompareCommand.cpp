// `clearfog compare`: one workload on several platforms, each with its best parallelism, side by side.
#include <iostream>

#include "app/Command.hpp"
#include <fmt/format.h>

#include "config/Override.hpp"
#include "config/ScaleLimits.hpp"
#include "core/Errors.hpp"
#include "core/Interrupt.hpp"
#include "driver/ResourceEstimate.hpp"
#include "compare/Compare.hpp"
#include "compare/CompareTable.hpp"

namespace clearfog::app {
namespace {

/// `--search KNOB=V1,V2` applied to `space`; a bad knob or value is a ConfigError at --search.
compare::SearchSpace with_search(compare::SearchSpace space, const std::string& text) {
  const auto eq = text.find('=');
  std::string problem = "expected KNOB=VALUE[,VALUE...]";
  if (eq != std::string::npos) {
    std::vector<std::string> values;
    std::size_t start = eq + 1;
    while (start <= text.size()) {
      const auto end = std::min(text.find(',', start), text.size());
      values.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    problem = space.restrict(text.substr(0, eq), values);
  }
  if (!problem.empty()) throw ConfigError({{{"--search", 0, 0}, text, problem}});
  return space;
}

}  // namespace

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
    std::vector<std::string> sets;
    std::vector<std::string> searches;
    double memory_headroom = -1;
    double timeout_s = 0;
    std::string max_memory;  // data size per configuration; empty: the available memory / jobs
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("compare", "compare platforms on one workload, each with its best parallelism");
  cmd->add_option("file", o->file, "comparison YAML file (scenarios/compare/); or give --workload and --platforms");
  cmd->add_option("--workload", o->workload, "workload YAML file");
  cmd->add_option("--platforms", o->platforms, "platform YAML files");
  cmd->add_option("--devices", o->devices, "devices per platform (default: each platform's node.devices)")->check(CLI::PositiveNumber);
  cmd->add_option("--global-batch", o->global_batch, "sequences per iteration (default: 4 x lcm of device counts)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--micro-batch", o->micro_batch, "fixed micro-batch (default: searched over 1, 2, 4, ... 16)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--jobs,-j", o->jobs, "configurations simulated at the same time")->check(CLI::Range(1, 256));
  cmd->add_flag("--no-confirm", o->no_confirm,
                "report the winners at the search's fluid fidelity instead of re-simulating them at step fidelity");
  cmd->add_option("--set", o->sets,
                  "override a scenario key before the search, as run --set, e.g. --set training.optimizer=sgd "
                  "(repeatable; after the file's set:)");
  cmd->add_option("--search", o->searches,
                  "restrict a searched knob, e.g. --search zero_stage=0,1 --search precision=bf16,fp8 (knobs: "
                  "zero_stage, recompute, sequence_parallel, attention, precision; repeatable)");
  cmd->add_option("--memory-headroom", o->memory_headroom,
                  "share of device memory the best configuration leaves free (default 0.05)")
      ->check(CLI::Range(0.0, 0.999999));
  cmd->add_option("--timeout", o->timeout_s,
                  "seconds one configuration's simulation may take before it is stopped and counted as failed "
                  "(default 0: no limit)");
  cmd->add_option("--max-memory", o->max_memory,
                  "host memory one configuration's simulation may use, e.g. 8 GB; larger ones are refused before "
                  "they run (default: the available memory / --jobs)");
  cmd->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {cmd, [o] {
            check_timeout_option(o->timeout_s);
            compare::CompareRequest req;
            if (!o->file.empty()) req = compare::load_compare_file(o->file);
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
            for (const auto& text : o->sets) {
              req.set.push_back(config::parse_override(text));
              req.set_locations.push_back({"--set", 0, 0});
            }
            for (const auto& text : o->searches) req.search = with_search(req.search, text);
            if (o->memory_headroom >= 0) req.memory_headroom = o->memory_headroom;
            req.confirm_at_step = !o->no_confirm;
            req.timeout_s = o->timeout_s;
            if (!o->max_memory.empty())
              req.max_memory_B = parse_max_memory_option(o->max_memory);
            else if (const auto available = driver::available_memory_bytes())
              req.max_memory_B = *available / req.jobs;
            req.progress = [](const std::string& line) { std::cerr << line << std::endl; };
            if (req.workload.empty() || req.platforms.empty())
              throw ConfigError({{{"compare", 0, 0}, "", "needs a comparison file or --workload and --platforms"}});
            // Ctrl-C or SIGTERM: the children stop, the table shows what was simulated, the temp
            // directory goes.
            const InterruptGuard interrupts;
            const auto results = compare::compare_platforms(req);
            if (o->format == "json")
              std::cout << compare::comparison_json(req, results).dump(2) << '\n';
            else
              std::cout << compare::render_comparison(req, results);
            if (const int signal = interrupt_signal(); signal != 0) {
              const std::string why = results.front().stopped;  // empty: the signal came after the search
              std::cerr << "compare: " << (why.empty() ? std::string("interrupted") : why)
                        << "; the results above are partial\n";
              return 128 + signal;
            }
            return kExitOk;
          }};
}

}  // namespace clearfog::app
