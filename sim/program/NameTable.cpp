#include "program/NameTable.hpp"

namespace clearfog::program {

NameId NameTable::intern(std::string_view name) {
  if (const auto it = ids_.find(name); it != ids_.end()) return it->second;
  const auto id = static_cast<NameId>(names_.size());
  const std::string& stored = names_.emplace_back(name);
  ids_.emplace(std::string_view(stored), id);
  return id;
}

std::size_t NameTable::memory_bytes() const {
  std::size_t bytes = names_.size() * (sizeof(std::string) + 2 * sizeof(void*) + sizeof(NameId));
  for (const auto& n : names_) bytes += n.capacity() > 15 ? n.capacity() + 1 : 0;
  return bytes;
}

}  // namespace clearfog::program
