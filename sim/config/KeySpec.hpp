#pragma once
// The declaration of one configuration key (SST style: declared once). AcceleratorKeys.cpp,
// PlatformKeys.cpp, WorkloadKeys.cpp and ScenarioKeys.cpp declare every key of every document kind;
// that table is at the same time the reader's list of known keys, the
// validator's types, defaults and constraints, and the rows of `clearfog explain` and
// docs/configuration.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/DocumentKind.hpp"
#include "core/Units.hpp"

namespace clearfog::config {

enum class KeyType {
  Kind,       ///< the `kind:` line itself
  Integer,    ///< whole number, fits in an int
  Number,     ///< real number without unit
  Quantity,   ///< number with a unit of `dimension`, stored in SI units
  String,     ///< free text
  Enum,       ///< one of `choices`
  Bool,       ///< true / false
  Reference,  ///< another document of `referenced_kind`: a path or an inline mapping
  Record,     ///< a mapping of `fields` (only as the element of a list: `list` is true)
};

enum class Presence {
  Required,   ///< no default: the key must be given
  Defaulted,  ///< absent = `default_text`, read like a value written in the file
  Derived,    ///< absent = computed from other keys; `default_text` says how ("4*hidden")
  Optional,   ///< absent = what the description says (e.g. "dtype not supported")
};

enum class Constraint {
  None,
  Positive,     ///< > 0
  NonNegative,  ///< >= 0
  AtLeastOne,   ///< >= 1 (integers)
  Fraction,     ///< >= 0.001 and <= 1: an efficiency below 0.1 % is a typo, and 1e-300 makes every time infinite
};

/// When a key is used: another key of the same document has one of `values` (an Enum key), or
/// more than `above` (an Integer key, when `values` is empty). A key whose conditions do not all
/// hold must not be given; a Required key is required only when they hold. The semantic checks
/// enforce this; the reference shows it.
struct Condition {
  std::string key;                  ///< "node.topology"
  std::vector<std::string> values;  ///< the key's value is one of these (or none of them, if `except`)
  bool except = false;
  std::int64_t above = 0;           ///< Integer key: its value is > above

  /// node.topology is torus.
  static Condition one_of(std::string key, std::vector<std::string> values) {
    return {std::move(key), std::move(values), false, 0};
  }
  /// node.topology is anything but custom.
  static Condition none_of(std::string key, std::vector<std::string> values) {
    return {std::move(key), std::move(values), true, 0};
  }
  /// fabric.nodes > 1.
  static Condition greater(std::string key, std::int64_t above) { return {std::move(key), {}, false, above}; }
};

struct KeySpec {
  std::string path{};  ///< dotted path from the document root: "node.link.bandwidth"
  KeyType type = KeyType::String;
  units::Dimension dimension = units::Dimension::Dimensionless;  ///< Quantity only
  std::vector<std::string> choices{};                            ///< Enum (and Kind) only
  DocumentKind referenced_kind = DocumentKind::Accelerator;      ///< Reference only
  Presence presence = Presence::Required;
  std::string default_text{};  ///< Defaulted and Derived only
  Constraint constraint = Constraint::None;
  std::string counts{};      ///< what an Integer counts ("devices"), for the reference; may be empty
  std::string description{};
  /// A YAML list whose elements are each of `type` (Integer, String or Record), with `constraint`
  /// applying to each element. Diagnostics name an element "key[2]" and a field "key[2].field".
  bool list = false;
  std::vector<KeySpec> fields{};        ///< Record only: its keys, `path` being the field's name
  std::vector<Condition> only_with{};   ///< all must hold for the key to be used; empty: always used
};

/// "> 0", ">= 1", "" for None.
std::string constraint_text(Constraint c);

/// Whether `value` satisfies `c`.
bool satisfies(Constraint c, double value);

/// "node.topology is torus", "node.topology is not custom", "fabric.nodes > 1".
std::string condition_text(const Condition& c);

/// What a value of this key must look like, for messages and the reference: "an integer >= 1",
/// "a bandwidth such as \"300 GB/s\"", "one of: adam, sgd", "a path to a platform file or an
/// inline platform mapping", "a list of integers >= 1, such as [4, 4]".
std::string expected_text(const KeySpec& key);

/// What one element of a list key must look like ("an integer >= 1"); expected_text() for others.
std::string element_expected_text(const KeySpec& key);

/// Short type name for the reference tables: "integer", "bandwidth", "enum", "platform", "list of
/// integers", ...
std::string type_text(const KeySpec& key);

/// Default column of the reference tables: "required", "25 MB", "4*hidden", "absent".
std::string default_column_text(const KeySpec& key);

}  // namespace clearfog::config
