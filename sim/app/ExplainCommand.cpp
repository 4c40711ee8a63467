// `clearfog explain [KIND] [--markdown]`: the key tables, as text or as docs/configuration.md.
#include <iostream>

#include <fmt/format.h>

#include "app/Command.hpp"
#include "anyfile/AnyFile.hpp"

namespace clearfog::app {

Command add_explain_command(CLI::App& app) {
  struct Options {
    std::string kind = "all";
    bool markdown = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("explain", "print the keys of a kind of file: type, unit, default, meaning");
  const auto kinds = anyfile::explainable_kinds();
  cmd->add_option("kind", o->kind, fmt::format("one of {}", fmt::join(kinds, ", ")))->check(CLI::IsMember(kinds));
  cmd->add_flag("--markdown", o->markdown, "print Markdown (docs/configuration.md is this output for 'all')");
  return {cmd, [o] {
            std::cout << anyfile::explain_kind(o->kind, o->markdown);
            return kExitOk;
          }};
}

}  // namespace clearfog::app
