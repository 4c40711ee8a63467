#pragma once
// One value of a read document, typed by its KeySpec, with where it came from (Timeloop style:
// the validator and reports can tell a given value from a default).
#include <cstdint>
#include <string>
#include <variant>

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
  using Data = std::variant<std::monostate, std::int64_t, double, bool, std::string>;

  const KeySpec* spec = nullptr;
  Data data;
  std::string text;         ///< as written ("300 GB/s"), or the default text
  Origin origin = Origin::Given;
  SourceLocation location;  ///< of the value; for a default, of the closest enclosing section
  std::string key;          ///< the path diagnostics print (prefixed in inline documents)

  [[nodiscard]] bool is_default() const { return origin == Origin::Defaulted; }
  [[nodiscard]] bool is_derived() const { return std::holds_alternative<std::monostate>(data); }
  [[nodiscard]] std::int64_t as_integer() const { return std::get<std::int64_t>(data); }
  [[nodiscard]] double as_number() const { return std::get<double>(data); }
  [[nodiscard]] const std::string& as_string() const { return std::get<std::string>(data); }
  [[nodiscard]] bool as_bool() const { return std::get<bool>(data); }
};

}  // namespace clearfog::config
