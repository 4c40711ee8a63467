#pragma once
// Where the YAML nodes a document reader walks come from, and how a problem with one of them is
// located: file:line:col for a node written in a file, "--set" for a node of a command-line override.
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "core/Errors.hpp"

namespace clearfog::config {

/// Where problems with --set values are reported: "--set", without line or column.
SourceLocation override_location();

/// Where the YAML nodes being walked come from.
struct NodeSource {
  std::string file;            ///< the file they are written in (for an override: the document's file)
  bool from_override = false;  ///< nodes of a --set value: located at "--set"
  std::string display_prefix;  ///< prepended to key paths in diagnostics

  /// The location of a node's `mark`; `fallback` when the mark is unknown, "--set" for an override.
  [[nodiscard]] SourceLocation location(const YAML::Mark& mark, const SourceLocation& fallback) const;
  /// A key path as diagnostics show it: with the prefix of an inline document ("platform.node...").
  [[nodiscard]] std::string display(std::string_view path) const;
};

}  // namespace clearfog::config
