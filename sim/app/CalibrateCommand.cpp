// `clearfog calibrate --measurements FILE.csv --accelerator A.yaml [--out NEW.yaml]`: fits the
// accelerator file's efficiencies to kernel measurements made on the part
// (scripts/measure-accelerator.py; kernels/AcceleratorFit.hpp, docs/calibration.md), prints each
// value before and after and the model's error per kernel class before and after, and writes the
// file with the fitted values and the measurement behind each (`calibrated.<key>`).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/Command.hpp"
#include "config/ConfigLoader.hpp"
#include "config/KeyTable.hpp"
#include "core/Errors.hpp"
#include "core/OutputPaths.hpp"
#include "core/Units.hpp"
#include "kernels/AcceleratorFit.hpp"

namespace clearfog::app {
namespace {

using kernels::AcceleratorFit;

/// A fitted value as an accelerator file writes it: with the unit its key is declared in.
std::string file_text(const std::string& key, double value) {
  const config::KeySpec* spec = config::KeyTable::of(config::DocumentKind::Accelerator).find(key);
  if (spec && spec->type == config::KeyType::Quantity) return units::format(value, spec->dimension);
  return fmt::format("{:.4g}", value);
}

std::string percent(double fraction) { return fmt::format("{:+.1f} %", 100 * fraction); }

std::string_view status_text(kernels::FitStatus s) {
  switch (s) {
    case kernels::FitStatus::Fitted: return "fitted";
    case kernels::FitStatus::Insensitive: return "kept: the rows do not depend on it";
    case kernels::FitStatus::AtBound: return "not written: the best fit is the search's bound";
  }
  return "?";
}

std::string render_text(const AcceleratorFit& fit, const std::string& file, const std::string& gpu, std::size_t rows) {
  std::string o = fmt::format("# clearfog calibrate: {} from {} ({}{} rows)\n", fit.fitted.name, file,
                              gpu.empty() ? "" : "gpu " + gpu + ", ", rows);
  o += fmt::format("{:<34}{:>14}{:>14}  {}\n", "key", "before", "after", "fitted to");
  for (const auto& v : fit.values)
    o += fmt::format("{:<34}{:>14}{:>14}  {}{}\n", v.key, file_text(v.key, v.before), file_text(v.key, v.after),
                     v.rows_text,
                     v.status == kernels::FitStatus::Fitted ? "" : fmt::format(" ({})", status_text(v.status)));
  o += "\nthe model against the measurements, measured / predicted time - 1 (> 0: the model is fast)\n";
  o += fmt::format("{:<22}{:>6}{:>14}{:>14}{:>14}\n", "kernels", "rows", "mean before", "mean after", "worst after");
  for (const auto& r : fit.residuals)
    o += fmt::format("{:<22}{:>6}{:>14}{:>14}{:>14}\n", r.kernel_class, r.rows, percent(r.mean_error_before),
                     percent(r.mean_error_after), fmt::format("{:.1f} %", 100 * r.worst_error_after));
  for (const auto& s : fit.skipped) o += "skipped: " + s + "\n";
  return o;
}

nlohmann::ordered_json render_json(const AcceleratorFit& fit) {
  nlohmann::ordered_json j = {{"accelerator", fit.fitted.name}};
  auto& values = j["values"] = nlohmann::ordered_json::array();
  for (const auto& v : fit.values)
    values.push_back({{"key", v.key},
                      {"before", v.before},
                      {"after", v.after},
                      {"rows", v.rows},
                      {"fitted_to", v.rows_text},
                      {"status", status_text(v.status)}});
  auto& residuals = j["residuals"] = nlohmann::ordered_json::array();
  for (const auto& r : fit.residuals)
    residuals.push_back({{"kernels", r.kernel_class},
                         {"rows", r.rows},
                         {"mean_error_before", r.mean_error_before},
                         {"mean_error_after", r.mean_error_after},
                         {"worst_error_after", r.worst_error_after}});
  j["skipped"] = fit.skipped;
  return j;
}

/// The accelerator file `from` with the fitted values and, for each, the measurement behind it.
/// Comments do not survive (yaml-cpp does not keep them): the file says where it came from.
void write_fitted(const std::string& from, const std::string& to, const AcceleratorFit& fit, const std::string& source) {
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(from);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("cannot read {} again to write {}: {}", from, to, e.what()));
  }
  for (const auto& v : fit.values) {
    if (v.status != kernels::FitStatus::Fitted) continue;
    std::vector<std::string> parts;
    for (std::size_t start = 0, dot; start <= v.key.size(); start = dot + 1) {
      dot = v.key.find('.', start);
      if (dot == std::string::npos) dot = v.key.size();
      parts.push_back(v.key.substr(start, dot - start));
    }
    // Node::reset moves a handle; `=` would overwrite the node it refers to (yaml-cpp's semantics).
    YAML::Node value, cited;
    value.reset(doc);
    cited.reset(doc["calibrated"]);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      value.reset(value[parts[i]]);
      cited.reset(cited[parts[i]]);
    }
    value[parts.back()] = file_text(v.key, v.after);
    cited[parts.back()] = fmt::format("{}: {}, fitted by clearfog calibrate", source, v.rows_text);
  }
  YAML::Emitter out;
  out << doc;
  std::ofstream f(to, std::ios::binary);
  f << "# Written by clearfog calibrate from " << from << " and " << source << "\n" << out.c_str() << "\n";
  if (!f) throw Error(fmt::format("cannot write {}", to));
}

}  // namespace

Command add_calibrate_command(CLI::App& app) {
  struct Options {
    std::string measurements, accelerator, out, format = "text";
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("calibrate",
                                 "fit an accelerator file's efficiencies to kernel measurements made on the part "
                                 "(scripts/measure-accelerator.py), with the model's error before and after");
  cmd->add_option("--measurements", o->measurements, "CSV of kernel measurements (docs/calibration.md)")->required();
  cmd->add_option("--accelerator", o->accelerator, "accelerator YAML file to start from")->required();
  cmd->add_option("--out", o->out, "write the accelerator file with the fitted values to FILE (default: none)");
  cmd->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {cmd, [o] {
            if (!o->out.empty()) check_output_file(o->out, "--out");
            const auto start = config::load_accelerator(o->accelerator);
            const auto measurements = kernels::read_kernel_measurements(o->measurements);
            if (measurements.rows.empty())
              throw ConfigError({Diagnostic{{o->measurements, 0, 0}, "", "no measurement rows"}});
            const auto fit = kernels::fit_accelerator(start, measurements);
            if (std::none_of(fit.values.begin(), fit.values.end(),
                             [](const auto& v) { return v.status == kernels::FitStatus::Fitted; })) {
              std::string why;
              for (const auto& v : fit.values) why += fmt::format("; {}: {}", v.key, status_text(v.status));
              for (const auto& skipped : fit.skipped) why += "; " + skipped;
              throw ConfigError({Diagnostic{{o->measurements, 0, 0}, "",
                                            fmt::format("no efficiency of {} could be fitted to these rows{}",
                                                        start.name, why)}});
            }
            if (o->format == "json")
              std::cout << render_json(fit).dump(2) << '\n';
            else
              std::cout << render_text(fit, o->measurements, measurements.gpu, measurements.rows.size());
            if (!o->out.empty())
              write_fitted(o->accelerator, o->out, fit,
                           fmt::format("{}{}", o->measurements,
                                       measurements.gpu.empty() ? "" : " (" + measurements.gpu + ")"));
            return kExitOk;
          }};
}

}  // namespace clearfog::app
