#pragma once
// A document after reading and per-key validation: its typed values by key path, the locations of
// its sections, and the documents it references. Values that failed validation are absent, so
// cross-key checks run only on what is valid.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/ConfigValue.hpp"
#include "config/DocumentKind.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

class ConfigDocument {
public:
  /// `file`: the file the document is written in. `key_prefix`: prepended to key paths in
  /// diagnostics ("" for a file, "platform." for a platform written inline in a scenario).
  /// `root`: where the document starts.
  ConfigDocument(DocumentKind kind, std::string file, std::string key_prefix, SourceLocation root);

  [[nodiscard]] DocumentKind kind() const { return kind_; }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::string& key_prefix() const { return key_prefix_; }
  /// The path diagnostics print for a key of this document.
  [[nodiscard]] std::string display_key(std::string_view path) const { return key_prefix_ + std::string(path); }

  /// The value of a key, or nullptr when it is absent or was invalid.
  [[nodiscard]] const ConfigValue* find(std::string_view path) const;
  /// The value of a key that must be there (the builders call these after validation passed);
  /// std::out_of_range otherwise.
  [[nodiscard]] const ConfigValue& at(std::string_view path) const;
  [[nodiscard]] int get_int(std::string_view path) const;
  [[nodiscard]] double get_number(std::string_view path) const;
  [[nodiscard]] const std::string& get_string(std::string_view path) const;
  [[nodiscard]] bool get_bool(std::string_view path) const;
  /// An integer list key's elements.
  [[nodiscard]] std::vector<int> get_int_list(std::string_view path) const;
  /// A string list key's elements.
  [[nodiscard]] std::vector<std::string> get_string_list(std::string_view path) const;
  [[nodiscard]] const std::map<std::string, ConfigValue, std::less<>>& values() const { return values_; }

  /// Whether `path`, or a section above it, was written but rejected (wrong shape, type, unit or
  /// range, or a misspelling of it was written): its absence is already explained, so checks must
  /// not report it as missing.
  [[nodiscard]] bool rejected(std::string_view path) const;

  /// Whether every key of this document (not counting referenced documents) was valid. Cross-key
  /// checks that read another document run only when it is complete, to avoid follow-on errors.
  [[nodiscard]] bool complete() const { return complete_; }

  /// The referenced document under a reference key, or nullptr when it could not be read.
  [[nodiscard]] const ConfigDocument* child(std::string_view key) const;
  [[nodiscard]] const std::map<std::string, std::shared_ptr<const ConfigDocument>, std::less<>>& children() const {
    return children_;
  }

  /// Where a section ("" = root, "node.link") starts, if it is written.
  [[nodiscard]] std::optional<SourceLocation> section_location(std::string_view section) const;
  /// Where to report a problem with `path`: its value, else its closest written section, else the
  /// document's start.
  [[nodiscard]] SourceLocation location_of(std::string_view path) const;

  void set_value(std::string path, ConfigValue value);
  void set_child(std::string key, std::shared_ptr<const ConfigDocument> child);
  void set_section_location(std::string section, SourceLocation location);
  void set_complete(bool complete) { complete_ = complete; }
  void set_rejected(std::string path) { rejected_.insert(std::move(path)); }

private:
  DocumentKind kind_;
  std::string file_;
  std::string key_prefix_;
  std::map<std::string, ConfigValue, std::less<>> values_;
  std::map<std::string, std::shared_ptr<const ConfigDocument>, std::less<>> children_;
  std::map<std::string, SourceLocation, std::less<>> sections_;
  std::set<std::string, std::less<>> rejected_;
  bool complete_ = true;
};

}  // namespace clearfog::config
