// `clearfog report DIR [--html FILE]`: the HTML page of a finished (or partly finished) sweep
// output directory, by default DIR/report.html (docs/sweeps.md).
#include <fmt/format.h>

#include <iostream>

#include "app/Command.hpp"
#include "core/OutputPaths.hpp"
#include "sweep/PointRecord.hpp"
#include "sweep/SweepReport.hpp"

namespace clearfog::app {

Command add_report_command(CLI::App& app) {
  struct Options {
    std::string dir;
    std::string html_file;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("report", "write the HTML page of a sweep output directory (table, plots, Pareto front)");
  cmd->add_option("dir", o->dir, "the --out directory of `clearfog sweep` (points/, sweep.json)")->required();
  cmd->add_option("--html", o->html_file, "where to write the page (default: DIR/report.html)");
  return {cmd, [o] {
            const std::filesystem::path file =
                o->html_file.empty() ? std::filesystem::path(o->dir) / "report.html" : std::filesystem::path(o->html_file);
            const auto page = sweep::sweep_report_html(o->dir, o->dir);
            check_output_file(file.string(), "--html");
            sweep::write_file_atomically(file, page);
            std::cout << "wrote " << file.string() << '\n';
            return kExitOk;
          }};
}

}  // namespace clearfog::app
