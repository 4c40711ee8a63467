#include "config/ConfigDocument.hpp"

#include <stdexcept>

namespace clearfog::config {

ConfigDocument::ConfigDocument(DocumentKind kind, std::string file, std::string key_prefix, SourceLocation root)
    : kind_(kind), file_(std::move(file)), key_prefix_(std::move(key_prefix)) {
  sections_.emplace("", std::move(root));
}

const ConfigValue* ConfigDocument::find(std::string_view path) const {
  const auto it = values_.find(path);
  return it == values_.end() ? nullptr : &it->second;
}

const ConfigValue& ConfigDocument::at(std::string_view path) const {
  if (const ConfigValue* v = find(path)) return *v;
  throw std::out_of_range("configuration value \"" + display_key(path) + "\" is absent");
}

int ConfigDocument::get_int(std::string_view path) const {
  // The reader only stores integers that fit in an int.
  return static_cast<int>(at(path).as_integer());
}

double ConfigDocument::get_number(std::string_view path) const { return at(path).as_number(); }

const std::string& ConfigDocument::get_string(std::string_view path) const { return at(path).as_string(); }

const ConfigDocument* ConfigDocument::child(std::string_view key) const {
  const auto it = children_.find(key);
  return it == children_.end() ? nullptr : it->second.get();
}

std::optional<SourceLocation> ConfigDocument::section_location(std::string_view section) const {
  const auto it = sections_.find(section);
  if (it == sections_.end()) return std::nullopt;
  return it->second;
}

SourceLocation ConfigDocument::location_of(std::string_view path) const {
  if (const ConfigValue* v = find(path); v && !v->is_default()) return v->location;
  if (auto loc = section_location(path)) return *loc;
  std::string_view section = path;
  while (true) {
    const auto dot = section.rfind('.');
    section = dot == std::string_view::npos ? std::string_view{} : section.substr(0, dot);
    if (auto loc = section_location(section)) return *loc;
  }
}

void ConfigDocument::set_value(std::string path, ConfigValue value) {
  values_.insert_or_assign(std::move(path), std::move(value));
}

void ConfigDocument::set_child(std::string key, std::shared_ptr<const ConfigDocument> child) {
  children_.insert_or_assign(std::move(key), std::move(child));
}

void ConfigDocument::set_section_location(std::string section, SourceLocation location) {
  sections_.insert_or_assign(std::move(section), std::move(location));
}

}  // namespace clearfog::config
