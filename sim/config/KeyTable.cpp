#include "config/KeyTable.hpp"

#include <algorithm>
#include <stdexcept>

namespace clearfog::config {

KeyTable::KeyTable(DocumentKind kind, std::string intro, std::vector<KeySpec> keys)
    : kind_(kind), intro_(std::move(intro)), keys_(std::move(keys)) {
  for (const auto& k : keys_) {
    if (is_section(k.path))
      throw std::logic_error("key table: \"" + k.path + "\" is both a key and a section");
    if ((k.type == KeyType::Record) != !k.fields.empty() || (k.type == KeyType::Record && !k.list))
      throw std::logic_error("key table: \"" + k.path + "\": a record, and only a record, has fields, and only in a list");
    for (const auto& c : k.only_with)
      if (!find(c.key)) throw std::logic_error("key table: \"" + k.path + "\" depends on undeclared \"" + c.key + "\"");
  }
}

const KeySpec* KeyTable::find(std::string_view path) const {
  for (const auto& k : keys_)
    if (k.path == path) return &k;
  return nullptr;
}

bool KeyTable::is_section(std::string_view path) const {
  if (path.empty()) return true;
  for (const auto& k : keys_)
    if (k.path.size() > path.size() && k.path.starts_with(path) && k.path[path.size()] == '.')
      return true;
  return false;
}

std::vector<std::string> KeyTable::children(std::string_view section) const {
  std::vector<std::string> names;
  const std::size_t skip = section.empty() ? 0 : section.size() + 1;
  for (const auto& k : keys_) {
    if (!section.empty() &&
        !(k.path.size() > section.size() && k.path.starts_with(section) && k.path[section.size()] == '.'))
      continue;
    std::string name = k.path.substr(skip, k.path.find('.', skip) - skip);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  return names;
}

}  // namespace clearfog::config
