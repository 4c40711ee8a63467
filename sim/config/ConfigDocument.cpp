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

bool ConfigDocument::get_bool(std::string_view path) const { return at(path).as_bool(); }

std::vector<int> ConfigDocument::get_int_list(std::string_view path) const {
  std::vector<int> out;
  // The reader only stores integers that fit in an int.
  for (const ConfigValue& e : at(path).as_list()) out.push_back(static_cast<int>(e.as_integer()));
  return out;
}

std::vector<std::string> ConfigDocument::get_string_list(std::string_view path) const {
  std::vector<std::string> out;
  for (const ConfigValue& e : at(path).as_list()) out.push_back(e.as_string());
  return out;
}

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

bool ConfigDocument::rejected(std::string_view path) const {
  while (true) {
    if (rejected_.count(path)) return true;
    const auto dot = path.rfind('.');
    if (dot == std::string_view::npos) return false;
    path = path.substr(0, dot);
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
