#include "config/KeySpec.hpp"

#include <fmt/format.h>

namespace clearfog::config {

std::string constraint_text(Constraint c) {
  switch (c) {
    case Constraint::None: return "";
    case Constraint::Positive: return "> 0";
    case Constraint::NonNegative: return ">= 0";
    case Constraint::AtLeastOne: return ">= 1";
  }
  return "";
}

bool satisfies(Constraint c, double value) {
  switch (c) {
    case Constraint::None: return true;
    case Constraint::Positive: return value > 0.0;
    case Constraint::NonNegative: return value >= 0.0;
    case Constraint::AtLeastOne: return value >= 1.0;
  }
  return true;
}

namespace {

std::string with_constraint(std::string text, Constraint c) {
  if (c != Constraint::None) text = fmt::format("{} {}", text, constraint_text(c));
  return text;
}

/// "an accelerator", "a platform".
std::string with_article(std::string_view noun) {
  const bool vowel = !noun.empty() && std::string_view("aeiou").find(noun.front()) != std::string_view::npos;
  return fmt::format("{} {}", vowel ? "an" : "a", noun);
}

}  // namespace

std::string expected_text(const KeySpec& key) {
  switch (key.type) {
    case KeyType::Kind:
    case KeyType::Enum: return fmt::format("one of: {}", fmt::join(key.choices, ", "));
    case KeyType::Integer: return with_constraint("an integer", key.constraint);
    case KeyType::Number: return with_constraint("a number", key.constraint);
    case KeyType::Quantity:
      return fmt::format("{} such as \"{}\"",
                         with_constraint(fmt::format("a {}", units::dimension_name(key.dimension)),
                                         key.constraint),
                         units::dimension_example(key.dimension));
    case KeyType::String: return "a string";
    case KeyType::Bool: return "true or false";
    case KeyType::Reference:
      return fmt::format("a path to {0} file or an inline {1} mapping", with_article(kind_name(key.referenced_kind)),
                         kind_name(key.referenced_kind));
  }
  return "";
}

std::string type_text(const KeySpec& key) {
  switch (key.type) {
    case KeyType::Kind: return "kind";
    case KeyType::Integer: return "integer";
    case KeyType::Number: return "number";
    case KeyType::Quantity: return std::string(units::dimension_name(key.dimension));
    case KeyType::String: return "string";
    case KeyType::Enum: return "enum";
    case KeyType::Bool: return "bool";
    case KeyType::Reference: return fmt::format("{} (path or mapping)", kind_name(key.referenced_kind));
  }
  return "";
}

std::string default_column_text(const KeySpec& key) {
  switch (key.presence) {
    case Presence::Required: return "required";
    case Presence::Defaulted:
    case Presence::Derived: return key.default_text;
    case Presence::Optional: return "absent";
  }
  return "";
}

}  // namespace clearfog::config
