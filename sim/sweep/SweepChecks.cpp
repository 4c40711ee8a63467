#include "sweep/SweepChecks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <set>
#include <utility>

#include "config/DocumentReader.hpp"

namespace clearfog::sweep {
namespace {

/// The problems of reading the base scenario with these overrides, each key and value on its own
/// (no cross-key check): the reader's diagnostics.
std::vector<Diagnostic> read_problems(const SweepSpec& spec, const std::vector<config::Override>& overrides) {
  std::vector<Diagnostic> problems;
  config::read_document_file(spec.base, config::DocumentKind::Scenario, overrides, problems);
  return problems;
}

/// Whether a diagnostic located at --set is about the override of `key` (its own key, or a key
/// below it when the value is a mapping).
bool about(const Diagnostic& d, const std::string& key) {
  if (d.location.file != "--set") return false;
  return d.key == key || d.key.starts_with(key + ".") || d.key.starts_with(key + "[");
}

/// Relocates a --set diagnostic to where the value is written in the sweep file.
Diagnostic at_value(const Diagnostic& d, const SourceLocation& location, const std::string& shown_key) {
  return {location, shown_key, d.message};
}

}  // namespace

void check_sweep_values(const SweepSpec& spec) {
  std::vector<Diagnostic> out;
  std::set<std::string> seen;  // the same problem of a shared file is reported once
  const auto add = [&](Diagnostic d) {
    if (seen.insert(d.str()).second) out.push_back(std::move(d));
  };

  // The base with the fixed values: the base scenario's own problems, and those of each `set` value.
  std::set<std::string> base_problems;
  for (const Diagnostic& d : read_problems(spec, spec.fixed)) {
    bool placed = false;
    for (std::size_t i = 0; i < spec.fixed.size() && !placed; ++i)
      if (about(d, spec.fixed[i].key)) {
        add(at_value(d, spec.fixed_locations[i], "set." + d.key));
        placed = true;
      }
    if (!placed) add(d);
    base_problems.insert(d.str());
  }
  if (!out.empty()) throw ConfigError(std::move(out));

  // Each axis value on its own, with the fixed values; a value written twice is read once.
  for (const Axis& axis : spec.axes) {
    std::map<std::string, std::vector<std::size_t>> by_value;
    for (std::size_t i = 0; i < axis.values.size(); ++i) by_value[axis.values[i]].push_back(i);
    for (const auto& [value, indices] : by_value) {
      auto overrides = spec.fixed;
      overrides.push_back({axis.key, value});
      for (const Diagnostic& d : read_problems(spec, overrides)) {
        if (base_problems.count(d.str())) continue;
        if (!about(d, axis.key)) {
          add(d);  // a problem inside a file the value names: reported where it is
          continue;
        }
        for (std::size_t i : indices)
          add(at_value(d, axis.value_locations[i], fmt::format("axes.{}[{}]", d.key, i)));
      }
    }
  }
  // The budget of every point: each term's value must be a quantity of its `per`.
  if (spec.budget)
    for (const SweepPoint& p : spec.points()) try {
        (void)spec.budget->value(p.overrides);
      } catch (const ConfigError& e) {
        for (const Diagnostic& d : e.diagnostics()) add(d);
      }
  if (!out.empty()) {
    std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::tie(a.location.file, a.location.line, a.location.column) <
             std::tie(b.location.file, b.location.line, b.location.column);
    });
    throw ConfigError(std::move(out));
  }
}

}  // namespace clearfog::sweep
