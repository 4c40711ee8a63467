#pragma once
// The declared keys of one document kind, with the lookups the reader needs. Sections ("node",
// "node.link") are not declared: they are the prefixes of declared keys.
#include <string>
#include <string_view>
#include <vector>

#include "config/DocumentKind.hpp"
#include "config/KeySpec.hpp"

namespace clearfog::config {

class KeyTable {
public:
  KeyTable(DocumentKind kind, std::string intro, std::vector<KeySpec> keys);

  /// The table of a kind (defined in KeyTables.cpp).
  static const KeyTable& of(DocumentKind kind);

  [[nodiscard]] DocumentKind kind() const { return kind_; }
  /// One paragraph on what a document of this kind describes, for the reference.
  [[nodiscard]] const std::string& intro() const { return intro_; }
  /// Every key, in documentation order; the first is `kind`.
  [[nodiscard]] const std::vector<KeySpec>& keys() const { return keys_; }

  /// The declared key with this exact path, or nullptr.
  [[nodiscard]] const KeySpec* find(std::string_view path) const;
  /// Whether `path` is the root ("") or a proper prefix of declared keys ("node", "node.link").
  [[nodiscard]] bool is_section(std::string_view path) const;
  /// The names allowed directly under a section, in table order: children("node") = {devices,
  /// topology, link}.
  [[nodiscard]] std::vector<std::string> children(std::string_view section) const;

private:
  DocumentKind kind_;
  std::string intro_;
  std::vector<KeySpec> keys_;
};

}  // namespace clearfog::config
