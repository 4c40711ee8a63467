#pragma once
// What the document reader's walk finds before anything is typed: the node written for a leaf key,
// the node written for a reference key, and the --set overrides still to be applied.
#include <string>

#include <yaml-cpp/yaml.h>

#include "config/ConfigValue.hpp"
#include "config/NodeSource.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

/// An override still to be applied, with its path relative to the document it is applied to.
struct PendingOverride {
  std::string path;         ///< relative to the current document
  std::string display_key;  ///< as the user wrote it, for diagnostics
  YAML::Node value;
};

/// A node found for a leaf key, before it is typed: a scalar, or a sequence for a list key.
struct RawValue {
  YAML::Node node;
  NodeSource source;  ///< locates the elements of a list
  SourceLocation location;
  std::string display_key;
  Origin origin = Origin::Given;
};

/// A node found for a reference key: a path or an inline mapping.
struct RawReference {
  YAML::Node node;
  NodeSource source;
  SourceLocation location;
  std::string display_key;
};

}  // namespace clearfog::config
