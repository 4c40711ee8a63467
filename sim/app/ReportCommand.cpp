// `clearfog report PATH [--html FILE]`: the HTML page of a sweep output directory (by default
// DIR/report.html) or of the JSON of `clearfog compare --format json` (by default FILE.html beside
// it) (docs/sweeps.md).
#include <fmt/format.h>

#include <iostream>

#include "app/Command.hpp"
#include "config/YamlFile.hpp"
#include "core/Errors.hpp"
#include "core/OutputPaths.hpp"
#include "compare/ComparisonPage.hpp"
#include "sweep/PointRecord.hpp"
#include "sweep/SweepReport.hpp"

namespace clearfog::app {
namespace {

constexpr const char* kWhatIsAllowed =
    "give the --out directory of `clearfog sweep` or the output of `clearfog compare --format json`";

/// The page of a comparison's JSON file; its top-level figures are the inputs shown.
std::string comparison_page(const std::filesystem::path& file) {
  std::vector<Diagnostic> problems;
  const auto text = config::read_text_file(file, std::nullopt, problems);
  if (!text) throw ConfigError(problems);
  const auto j = nlohmann::ordered_json::parse(*text, nullptr, false);
  if (!compare::is_comparison_json(j))
    throw ConfigError({{{file.string(), 0, 0}, "", fmt::format("not a comparison (no \"platforms\" list); {}", kWhatIsAllowed)}});
  std::string inputs = "# " + file.string() + "\n";
  for (const auto& [k, v] : j.items())
    if (!v.is_structured()) inputs += fmt::format("{}: {}\n", k, v.is_string() ? v.get<std::string>() : v.dump());
  return compare::comparison_html(j, inputs);
}

}  // namespace

Command add_report_command(CLI::App& app) {
  struct Options {
    std::string path;
    std::string html_file;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "report", "write the HTML page of a sweep output directory or of a comparison's JSON (tables, plots, Pareto front)");
  cmd->add_option("path", o->path, "the --out directory of `clearfog sweep`, or the output of `clearfog compare --format json`")
      ->required();
  cmd->add_option("--html", o->html_file, "where to write the page (default: DIR/report.html, or FILE.html beside FILE)");
  return {cmd, [o] {
            const std::filesystem::path path = o->path;
            std::error_code ec;
            const bool comparison = std::filesystem::is_regular_file(path, ec);
            std::filesystem::path file = o->html_file;
            if (file.empty()) file = comparison ? std::filesystem::path(path).replace_extension(".html") : path / "report.html";
            const auto page = comparison ? comparison_page(path) : sweep::sweep_report_html(path, o->path);
            check_output_file(file, "--html");
            sweep::write_file_atomically(file, page);
            std::cout << "wrote " << file.string() << '\n';
            return kExitOk;
          }};
}

}  // namespace clearfog::app
