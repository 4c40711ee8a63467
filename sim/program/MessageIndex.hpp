#pragma once
// Which transfer matches which: the send of rank r to p with tag t and p's receive from r with tag
// t are the two ends of one message. Built once per plan by index_messages(), which is also where
// check_plan()'s rules are enforced: sorted compact keys per rank, text formatted only on error.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "program/Program.hpp"

namespace clearfog::program {

/// Bytes per message that index_messages() holds beside the index while it matches (one sorted key
/// per receive), for memory estimates.
inline constexpr std::size_t kMatchKey_B = 16;

class MessageIndex {
public:
  /// The index (among the peer's transfers) of the transfer matching `rank`'s transfer `t`.
  [[nodiscard]] std::uint32_t partner(int rank, std::uint32_t t) const { return partner_[rank][t]; }
  [[nodiscard]] std::uint64_t messages() const { return messages_; }
  [[nodiscard]] std::size_t memory_bytes() const;

private:
  friend MessageIndex index_messages(const Plan& plan);
  std::vector<std::vector<std::uint32_t>> partner_;  // [rank][transfer]
  std::uint64_t messages_ = 0;
};

/// Checks the plan (see check_plan()) and matches every send with its receive. Throws
/// SimulationError naming the op at fault.
MessageIndex index_messages(const Plan& plan);

}  // namespace clearfog::program
