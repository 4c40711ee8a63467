// `clearfog explain [KIND] [--markdown]`: the key tables, as text or as docs/configuration.md.
#include <iostream>

#include "app/Command.hpp"
#include "config/ConfigReference.hpp"
#include "config/DocumentKind.hpp"

namespace clearfog::app {

Command add_explain_command(CLI::App& app) {
  struct Options {
    std::string kind = "all";
    bool markdown = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("explain", "print the keys of a kind of file: type, unit, default, meaning");
  cmd->add_option("kind", o->kind, "accelerator, platform, workload, scenario or all")
      ->check(CLI::IsMember({"accelerator", "platform", "workload", "scenario", "all"}));
  cmd->add_flag("--markdown", o->markdown, "print Markdown (docs/configuration.md is this output for 'all')");
  return {cmd, [o] {
            if (o->kind != "all") {
              // CLI11 has already restricted `kind` to the known names.
              std::cout << config::render_key_table(*config::parse_kind(o->kind), o->markdown);
            } else if (o->markdown) {
              std::cout << config::configuration_reference_markdown();
            } else {
              for (config::DocumentKind k : config::kAllDocumentKinds)
                std::cout << config::render_key_table(k, false) << '\n';
            }
            return kExitOk;
          }};
}

}  // namespace clearfog::app
