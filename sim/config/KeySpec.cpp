#include "config/KeySpec.hpp"

#include <fmt/format.h>

namespace clearfog::config {

std::string constraint_text(Constraint c) {
  switch (c) {
    case Constraint::None: return "";
    case Constraint::Positive: return "> 0";
    case Constraint::NonNegative: return ">= 0";
    case Constraint::AtLeastOne: return ">= 1";
    case Constraint::Fraction: return "between 0.001 and 1";
  }
  return "";
}

bool satisfies(Constraint c, double value) {
  switch (c) {
    case Constraint::None: return true;
    case Constraint::Positive: return value > 0.0;
    case Constraint::NonNegative: return value >= 0.0;
    case Constraint::AtLeastOne: return value >= 1.0;
    case Constraint::Fraction: return value >= 1e-3 && value <= 1.0;
  }
  return true;
}

std::string condition_text(const Condition& c) {
  if (c.values.empty()) return fmt::format("{} > {}", c.key, c.above);
  return fmt::format("{} is {}{}", c.key, c.except ? "not " : "", fmt::join(c.values, " or "));
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

std::string element_expected_text(const KeySpec& key) {
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
    case KeyType::Record: {
      std::vector<std::string> names;
      for (const auto& f : key.fields) names.push_back(f.path);
      return fmt::format("a mapping with keys {}", fmt::join(names, ", "));
    }
  }
  return "";
}

std::string expected_text(const KeySpec& key) {
  if (!key.list) return element_expected_text(key);
  switch (key.type) {
    case KeyType::Integer: return with_constraint("a list of integers", key.constraint) + ", such as [4, 4]";
    case KeyType::Number: return with_constraint("a list of numbers", key.constraint);
    case KeyType::Quantity:
      return with_constraint(fmt::format("a list of {}s", units::dimension_name(key.dimension)), key.constraint);
    case KeyType::String: return "a list of names, such as [a, b]";
    case KeyType::Record: {
      std::vector<std::string> names;
      for (const auto& f : key.fields) names.push_back(f.path);
      return fmt::format("a list of mappings with keys {}", fmt::join(names, ", "));
    }
    case KeyType::Kind:
    case KeyType::Enum:
    case KeyType::Bool:
    case KeyType::Reference: break;
  }
  return fmt::format("a list of: {}", element_expected_text(key));
}

namespace {

std::string element_type_text(const KeySpec& key) {
  switch (key.type) {
    case KeyType::Kind: return "kind";
    case KeyType::Integer: return "integer";
    case KeyType::Number: return "number";
    case KeyType::Quantity: return std::string(units::dimension_name(key.dimension));
    case KeyType::String: return "string";
    case KeyType::Enum: return "enum";
    case KeyType::Bool: return "bool";
    case KeyType::Reference: return fmt::format("{} (path or mapping)", kind_name(key.referenced_kind));
    case KeyType::Record: return "record";
  }
  return "";
}

}  // namespace

std::string type_text(const KeySpec& key) {
  if (!key.list) return element_type_text(key);
  return fmt::format("list of {}s", element_type_text(key));
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
