#pragma once
// The declaration of one configuration key (SST style: declared once). KeyTables.cpp declares every
// key of every document kind; that table is at the same time the reader's list of known keys, the
// validator's types, defaults and constraints, and the rows of `clearfog explain` and
// docs/configuration.md.
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
};

/// "> 0", ">= 1", "" for None.
std::string constraint_text(Constraint c);

/// Whether `value` satisfies `c`.
bool satisfies(Constraint c, double value);

/// What a value of this key must look like, for messages and the reference: "an integer >= 1",
/// "a bandwidth such as \"300 GB/s\"", "one of: adam, sgd", "a path to a platform file or an
/// inline platform mapping".
std::string expected_text(const KeySpec& key);

/// Short type name for the reference tables: "integer", "bandwidth", "enum", "platform", ...
std::string type_text(const KeySpec& key);

/// Default column of the reference tables: "required", "25 MB", "4*hidden", "absent".
std::string default_column_text(const KeySpec& key);

}  // namespace clearfog::config
