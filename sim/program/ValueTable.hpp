#pragma once
// Durations and message sizes, stored once: a plan has millions of ops but a few hundred distinct
// values, so an op refers to its duration (and a transfer to its size) by a 4-byte id.
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace clearfog::program {

using ValueId = std::uint32_t;

class ValueTable {
public:
  /// The id of `value` (bit for bit), added on first use.
  ValueId intern(double value);
  [[nodiscard]] double value(ValueId id) const { return values_[id]; }
  [[nodiscard]] std::size_t size() const { return values_.size(); }
  [[nodiscard]] std::size_t memory_bytes() const;

private:
  std::vector<double> values_;
  std::unordered_map<std::uint64_t, ValueId> ids_;  // by bit pattern: -0.0 and 0.0 stay apart
  ValueId last_ = 0;
};

}  // namespace clearfog::program
