#include "program/ValueTable.hpp"

#include <bit>

namespace clearfog::program {

ValueId ValueTable::intern(double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  if (!values_.empty() && std::bit_cast<std::uint64_t>(values_[last_]) == bits) return last_;
  const auto [it, added] = ids_.emplace(bits, static_cast<ValueId>(values_.size()));
  if (added) values_.push_back(value);
  return last_ = it->second;
}

std::size_t ValueTable::memory_bytes() const {
  return values_.capacity() * sizeof(double) + ids_.size() * (sizeof(std::uint64_t) + sizeof(ValueId) + 2 * sizeof(void*));
}

}  // namespace clearfog::program
