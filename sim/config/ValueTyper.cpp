#include "config/ValueTyper.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "config/DidYouMean.hpp"
#include "config/NodeText.hpp"
#include "config/ScaleLimits.hpp"

namespace clearfog::config {

std::optional<ConfigValue> ValueTyper::type_value(const KeySpec& spec, const RawValue& raw) {
  if (!spec.list) {
    TypedScalar typed = type_scalar(spec, raw.node.Scalar(), limit_of(spec));
    if (!typed.error.empty()) {
      report(raw.location, raw.display_key, std::move(typed.error));
      return std::nullopt;
    }
    return ConfigValue{&spec, std::move(typed.data), raw.node.Scalar(), raw.origin, raw.location, raw.display_key};
  }
  // Every element is checked, so that one run reports every bad element.
  bool valid = true;
  std::vector<ConfigValue> elements;
  std::size_t index = 0;
  for (const auto& node : raw.node) {
    const YAML::Node element = node;
    const std::string key = fmt::format("{}[{}]", raw.display_key, index++);
    const SourceLocation where = raw.source.location(element.Mark(), raw.location);
    std::optional<ConfigValue> value;
    if (spec.type == KeyType::Record) {
      value = type_record(spec, element, raw.source, where, key, raw.origin);
    } else if (!element.IsScalar()) {
      report(where, key, fmt::format("expected {}, got {}", element_expected_text(spec), node_kind_text(element)));
    } else if (TypedScalar typed = type_scalar(spec, element.Scalar(), limit_of(spec)); !typed.error.empty()) {
      report(where, key, std::move(typed.error));
    } else {
      value = ConfigValue{&spec, std::move(typed.data), element.Scalar(), raw.origin, where, key};
    }
    if (value)
      elements.push_back(std::move(*value));
    else
      valid = false;
  }
  if (!valid) return std::nullopt;
  return ConfigValue{&spec, std::move(elements), flow_text(raw.node), raw.origin, raw.location, raw.display_key};
}

std::optional<ConfigValue> ValueTyper::type_record(const KeySpec& spec, const YAML::Node& node,
                                                   const NodeSource& source, const SourceLocation& where,
                                                   const std::string& key, Origin origin) {
  if (!node.IsMap()) {
    report(where, key, fmt::format("expected {}, got {}", element_expected_text(spec), node_kind_text(node)));
    return std::nullopt;
  }
  std::vector<std::string> allowed;
  for (const auto& f : spec.fields) allowed.push_back(f.path);
  bool valid = true;
  std::vector<ConfigValue> fields;
  std::set<std::string> seen;  // written, or suggested for a misspelt name
  for (const auto& entry : node) {
    const YAML::Node name_node = entry.first;
    const YAML::Node value = entry.second;
    const SourceLocation name_location = source.location(name_node.Mark(), where);
    if (!name_node.IsScalar()) {
      report(name_location, key, fmt::format("keys must be plain names; allowed here: {}", fmt::join(allowed, ", ")));
      valid = false;
      continue;
    }
    const std::string& name = name_node.Scalar();
    const std::string field_key = fmt::format("{}.{}", key, name);
    const auto field = std::find_if(spec.fields.begin(), spec.fields.end(),
                                    [&](const KeySpec& f) { return f.path == name; });
    if (field == spec.fields.end()) {
      report(name_location, field_key, unknown_key_message(name, name, allowed, ""));
      // The suggested field is probably the one meant: do not also report it as missing.
      if (auto best = closest_match(name, allowed)) seen.insert(*best);
      valid = false;
      continue;
    }
    seen.insert(name);
    const SourceLocation value_location = source.location(value.Mark(), name_location);
    TypedScalar typed;
    if (!value.IsScalar())
      typed.error = fmt::format("expected {}, got {}", expected_text(*field), node_kind_text(value));
    else
      typed = type_scalar(*field, value.Scalar(), limit_of(fmt::format("{}[].{}", spec.path, field->path)));
    if (!typed.error.empty()) {
      report(value_location, field_key, std::move(typed.error));
      valid = false;
      continue;
    }
    fields.push_back(ConfigValue{&*field, std::move(typed.data), value.Scalar(), origin, value_location, field_key});
  }
  for (const auto& f : spec.fields) {
    if (seen.count(f.path)) continue;
    const std::string field_key = fmt::format("{}.{}", key, f.path);
    switch (f.presence) {
      case Presence::Required:
        report(where, field_key, fmt::format("missing required key \"{}\" ({})", f.path, expected_text(f)));
        valid = false;
        break;
      case Presence::Defaulted:
        fields.push_back(ConfigValue{&f, type_scalar(f, f.default_text, {}).data, f.default_text, Origin::Defaulted,
                                     where, field_key});
        break;
      case Presence::Derived:
        fields.push_back(ConfigValue{&f, std::monostate{}, f.default_text, Origin::Defaulted, where, field_key});
        break;
      case Presence::Optional: break;
    }
  }
  if (!valid) return std::nullopt;
  return ConfigValue{&spec, std::move(fields), flow_text(node), origin, where, key};
}

ScalarLimits ValueTyper::limit_of(std::string_view path) const {
  return {find_key_limit(kind_, path), find_quantity_floor(kind_, path)};
}

void ValueTyper::report(SourceLocation location, std::string key, std::string message) {
  diagnostics_.push_back({std::move(location), std::move(key), std::move(message)});
}

}  // namespace clearfog::config
