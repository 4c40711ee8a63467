#include "program/NameTable.hpp"

namespace clearfog::program {

NameId NameTable::intern(std::string_view name) {
  // Planners name the same op on every member of a group in a row: compare before hashing.
  if (!names_.empty() && names_[last_] == name) return last_;
  if (const auto it = ids_.find(name); it != ids_.end()) return last_ = it->second;
  last_ = static_cast<NameId>(names_.size());
  const std::string& stored = names_.emplace_back(name);
  ids_.emplace(std::string_view(stored), last_);
  return last_;
}

std::size_t NameTable::memory_bytes() const {
  std::size_t bytes = names_.size() * (sizeof(std::string) + 2 * sizeof(void*) + sizeof(NameId));
  for (const auto& n : names_) bytes += n.capacity() > 15 ? n.capacity() + 1 : 0;
  return bytes;
}

}  // namespace clearfog::program
