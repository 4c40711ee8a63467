#pragma once
// Op names, stored once: every rank of a plan refers to "mb3.c5.layers.fwd" by the same small id,
// so a name costs 4 bytes per op instead of a string per op and rank.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace clearfog::program {

using NameId = std::uint32_t;

class NameTable {
public:
  /// The id of `name`, added on first use.
  NameId intern(std::string_view name);
  [[nodiscard]] std::string_view name(NameId id) const { return names_.at(id); }
  [[nodiscard]] std::size_t size() const { return names_.size(); }
  /// Heap bytes held, approximately (for memory estimates).
  [[nodiscard]] std::size_t memory_bytes() const;

private:
  std::deque<std::string> names_;  // a deque never moves its elements, so the views below stay valid
  std::unordered_map<std::string_view, NameId> ids_;
  NameId last_ = 0;  // the name interned last
};

}  // namespace clearfog::program
