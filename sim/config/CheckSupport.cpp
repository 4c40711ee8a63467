#include "config/CheckSupport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "config/KeyTable.hpp"
#include "core/DType.hpp"

namespace clearfog::config {

namespace {

/// Whether `c` holds in `doc`: false when the key it depends on is optional and not given;
/// nullopt when that key is invalid, so that its error is not followed by others.
std::optional<bool> holds(const ConfigDocument& doc, const Condition& c) {
  const ConfigValue* v = doc.find(c.key);
  if (!v) {
    const KeySpec* spec = KeyTable::of(doc.kind()).find(c.key);
    if (doc.complete() && spec && spec->presence == Presence::Optional) return false;
    return std::nullopt;
  }
  if (v->is_derived()) return std::nullopt;
  if (c.values.empty()) return v->numeric() > static_cast<double>(c.above);
  const bool listed = std::find(c.values.begin(), c.values.end(), v->as_string()) != c.values.end();
  return listed != c.except;
}

/// "node.topology is ring here", "fabric.nodes is 1 here; set fabric.nodes to the number of nodes".
std::string actual_text(const ConfigDocument& doc, const Condition& c) {
  const ConfigValue* v = doc.find(c.key);
  if (!v) return fmt::format("{} is not given", c.key);
  if (c.key == "fabric.nodes")
    return fmt::format("fabric.nodes is {} here; set fabric.nodes to the number of nodes", v->text);
  return fmt::format("{} is {} here", c.key, v->text);
}

}  // namespace

void report(const ConfigDocument& doc, std::string_view path, std::string message, std::vector<Diagnostic>& out) {
  out.push_back({doc.location_of(path), doc.display_key(path), std::move(message)});
}

void report_at(const ConfigValue& value, std::string message, std::vector<Diagnostic>& out) {
  out.push_back({value.location, value.key, std::move(message)});
}

std::vector<std::string> supported_dtypes(const ConfigDocument& accelerator) {
  std::vector<std::string> names;
  for (DType d : kAllDTypes)
    if (accelerator.find("peak." + std::string(dtype_name(d)))) names.emplace_back(dtype_name(d));
  return names;
}

/// A key given although one of its conditions does not hold; a required key missing although all hold.
void check_conditions(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  for (const KeySpec& key : KeyTable::of(doc.kind()).keys()) {
    if (key.only_with.empty()) continue;
    const Condition* failing = nullptr;
    bool known = true;
    for (const Condition& c : key.only_with) {
      const auto h = holds(doc, c);
      if (!h) known = false;
      else if (!*h) {
        failing = &c;
        break;
      }
    }
    const ConfigValue* value = doc.find(key.path);
    // A cluster file resized to one node with --set keeps its fabric description: unused, not wrong.
    if (failing && failing->key == "fabric.nodes" && value && value->origin == Origin::Given &&
        doc.find("fabric.nodes")->origin == Origin::Overridden)
      continue;
    if (failing) {
      if (value && !value->is_default())
        report_at(*value,
                  fmt::format("only used when {}; {}", condition_text(*failing), actual_text(doc, *failing)), out);
    } else if (known && !value && key.presence == Presence::Required && !doc.rejected(key.path)) {
      std::vector<std::string> conditions;
      bool chosen = false;  // whether the file chose what makes the key required, or left it defaulted
      for (const Condition& c : key.only_with) {
        conditions.push_back(condition_text(c));
        if (const ConfigValue* v = doc.find(c.key); v && !v->is_default()) chosen = true;
      }
      const auto dot = key.path.rfind('.');
      const std::string name = key.path.substr(dot == std::string::npos ? 0 : dot + 1);
      report(doc, key.path,
             chosen ? fmt::format("missing key \"{}\", required when {} ({})", name, fmt::join(conditions, " and "),
                                  expected_text(key))
                    : fmt::format("missing required key \"{}\" ({})", name, expected_text(key)),
             out);
    }
  }
}

/// The value of `path` when it is given or defaulted (not derived) and every condition of its key
/// holds; nullptr otherwise, so that checks below never judge a value that is not used.
const ConfigValue* used(const ConfigDocument& doc, std::string_view path) {
  const ConfigValue* v = doc.find(path);
  if (!v || v->is_derived()) return nullptr;
  for (const Condition& c : v->spec->only_with)
    if (holds(doc, c) != true) return nullptr;
  return v;
}

}  // namespace clearfog::config
