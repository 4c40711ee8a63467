#pragma once
// Types the raw values the document reader found against their keys: a scalar, a list of scalars
// or a list of records (mappings of the list key's fields). Every element of a list is checked, so
// that one run reports every bad element; problems are collected, never thrown.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/ConfigValue.hpp"
#include "config/DocumentKind.hpp"
#include "config/KeySpec.hpp"
#include "config/NodeSource.hpp"
#include "config/RawValue.hpp"
#include "config/TypedScalar.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

class ValueTyper {
public:
  /// Types values of a document of `kind` (whose scale limits apply); appends problems to `diagnostics`.
  ValueTyper(DocumentKind kind, std::vector<Diagnostic>& diagnostics) : kind_(kind), diagnostics_(diagnostics) {}

  /// Types a scalar or a list against its key; reports what is wrong and returns nullopt.
  std::optional<ConfigValue> type_value(const KeySpec& spec, const RawValue& raw);

private:
  /// Types one element of a list of records: a mapping of the list key's fields.
  std::optional<ConfigValue> type_record(const KeySpec& spec, const YAML::Node& node, const NodeSource& source,
                                         const SourceLocation& where, const std::string& key, Origin origin);

  ScalarLimits limit_of(const KeySpec& spec) const { return limit_of(spec.path); }
  /// `path`: a key's, or "overrides[].first" for a field of a list of records.
  ScalarLimits limit_of(std::string_view path) const;

  void report(SourceLocation location, std::string key, std::string message);

  DocumentKind kind_;
  std::vector<Diagnostic>& diagnostics_;
};

}  // namespace clearfog::config
