// `clearfog validate FILE...`: check any clearfog file (sweep and comparison files too); all
// problems of all files at once.
#include <iostream>

#include "app/Command.hpp"
#include "anyfile/AnyFile.hpp"
#include "config/Override.hpp"
#include "core/Errors.hpp"

namespace clearfog::app {

Command add_validate_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> files;
    std::vector<std::string> sets;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("validate", "check accelerator, platform, workload, scenario, sweep or compare files");
  cmd->add_option("files", o->files, "YAML files")->required();
  cmd->add_option("--set", o->sets,
                  "override a key before checking, as run --set does, e.g. --set parallelism.dp=16 (repeatable; "
                  "default: none)");
  return {cmd, [o] {
            std::vector<config::Override> overrides;
            for (const auto& s : o->sets) overrides.push_back(config::parse_override(s));
            std::vector<Diagnostic> all;
            for (const auto& f : o->files) {
              try {
                anyfile::validate_any_file(f, overrides);
                std::cout << f << ": ok\n";
              } catch (const ConfigError& e) {
                all.insert(all.end(), e.diagnostics().begin(), e.diagnostics().end());
              }
            }
            if (!all.empty()) throw ConfigError(all);
            return kExitOk;
          }};
}

}  // namespace clearfog::app
