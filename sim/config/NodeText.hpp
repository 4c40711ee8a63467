#pragma once
// YAML nodes as diagnostics and ConfigValue::text show them.
#include <string>

#include <yaml-cpp/yaml.h>

namespace clearfog::config {

/// What was written where a value was expected, for "got ...": "a mapping", "a list", the quoted
/// scalar, or "nothing".
std::string node_kind_text(const YAML::Node& node);

/// A node as one line of flow YAML, for ConfigValue::text: "[4, 4, 4]", "{from: dev0, to: sw0}".
std::string flow_text(const YAML::Node& node);

}  // namespace clearfog::config
