#pragma once
// One value of a read document, typed by its KeySpec, with where it came from (Timeloop style:
// the validator and reports can tell a given value from a default).
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/KeySpec.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

enum class Origin {
  Given,       ///< written in a file
  Overridden,  ///< set with --set
  Defaulted,   ///< absent; the key's default applies
};

struct ConfigValue {
  /// Integer -> int64; Number and Quantity -> double (SI units); String, Enum -> string; Bool ->
  /// bool; monostate for a Derived default that the builder computes (ffn_hidden = 4*hidden).
  /// A list key -> its elements, each a ConfigValue of the element type with its own location
  /// and key ("node.torus.dims[1]"); a Record element -> its fields, in the order written
  /// (defaults last), each with key "node.custom.edges[3].bandwidth".
  using Data = std::variant<std::monostate, std::int64_t, double, bool, std::string, std::vector<ConfigValue>>;

  const KeySpec* spec = nullptr;  ///< for a list element, the list key; for a record field, the field
  Data data;
  std::string text;         ///< as written ("300 GB/s", "[4, 4, 4]"), or the default text
  Origin origin = Origin::Given;
  SourceLocation location;  ///< of the value; for a default, of the closest enclosing section
  std::string key;          ///< the path diagnostics print (prefixed in inline documents)

  [[nodiscard]] bool is_default() const { return origin == Origin::Defaulted; }
  [[nodiscard]] bool is_derived() const { return std::holds_alternative<std::monostate>(data); }
  [[nodiscard]] std::int64_t as_integer() const { return std::get<std::int64_t>(data); }
  [[nodiscard]] double as_number() const { return std::get<double>(data); }
  [[nodiscard]] const std::string& as_string() const { return std::get<std::string>(data); }
  [[nodiscard]] bool as_bool() const { return std::get<bool>(data); }
  /// An Integer or a Number (Quantity) as a double.
  [[nodiscard]] double numeric() const {
    return std::holds_alternative<double>(data) ? as_number() : static_cast<double>(as_integer());
  }
  /// The elements of a list, or the fields of a record element.
  [[nodiscard]] const std::vector<ConfigValue>& as_list() const { return std::get<std::vector<ConfigValue>>(data); }
  /// A field of a record element by name, or nullptr when it is absent.
  [[nodiscard]] const ConfigValue* field(std::string_view name) const {
    for (const ConfigValue& f : as_list())
      if (f.spec && f.spec->path == name) return &f;
    return nullptr;
  }
};

}  // namespace clearfog::config
