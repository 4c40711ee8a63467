// `clearfog validate FILE...`: check any clearfog file (sweep and comparison files too); all
// problems of all files at once.
#include <iostream>

#include "app/Command.hpp"
#include "sweep/AnyFile.hpp"
#include "core/Errors.hpp"

namespace clearfog::app {

Command add_validate_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("validate", "check accelerator, platform, workload, scenario, sweep or compare files");
  cmd->add_option("files", *files, "YAML files")->required();
  return {cmd, [files] {
            std::vector<Diagnostic> all;
            for (const auto& f : *files) {
              try {
                sweep::validate_any_file(f);
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
