#include "program/MessageIndex.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/Errors.hpp"

namespace clearfog::program {
namespace {

constexpr std::uint32_t kUnmatched = std::numeric_limits<std::uint32_t>::max();

/// One end of a message as its rank sees it: the other rank, the tag, and where it is stored.
struct Key {
  int peer;
  std::uint32_t transfer;
  std::uint64_t tag;
};

static_assert(sizeof(Key) == kMatchKey_B);

bool key_less(const Key& a, const Key& b) { return a.peer != b.peer ? a.peer < b.peer : a.tag < b.tag; }

std::string where(const Plan& plan, int rank, OpIndex op) {
  return fmt::format("rank {} op {} ({})", rank, op, plan.ranks[rank].name(op));
}

std::string where_transfer(const Plan& plan, int rank, std::uint32_t t) {
  return where(plan, rank, plan.ranks[rank].op_of_transfer(t));
}

/// Whether every value of `values` (durations, overheads, sizes) is >= 0 (not NaN): then no op
/// needs its own check of them.
bool all_values_valid(const ValueTable& values) {
  for (ValueId v = 0; v < values.size(); ++v)
    if (!(values.value(v) >= 0)) return false;
  return true;
}

void check_ops(const Plan& plan, int r, bool values_valid) {
  const auto& p = plan.ranks[r];
  const int n = plan.rank_count();
  for (OpIndex i = 0; i < p.size(); ++i) {
    // Deps point backwards only: this makes every plan acyclic by construction.
    for (OpIndex d : p.deps(i))
      if (d >= i) throw SimulationError(fmt::format("{} depends on op {}, which is not earlier", where(plan, r, i), d));
    if (!values_valid && !(p.seconds(i) >= 0))
      throw SimulationError(fmt::format("{} has a negative or NaN duration", where(plan, r, i)));
    for (std::uint32_t t = p.transfer_begin(i); t < p.transfer_end(i); ++t) {
      const int peer = p.peer(t);
      if (peer < 0 || peer >= n || peer == r)
        throw SimulationError(
            fmt::format("{} names peer {} (ranks 0..{}, not itself)", where(plan, r, i), peer, n - 1));
      if (!values_valid && !(p.bytes(t) >= 0))
        throw SimulationError(fmt::format("{} moves a negative size", where(plan, r, i)));
    }
  }
}

/// The receives of rank r as keys sorted by (peer, tag); a repeated key is an error.
std::vector<Key> sorted_receives(const Plan& plan, int r) {
  const auto& p = plan.ranks[r];
  std::vector<Key> keys;
  for (OpIndex i = 0; i < p.size(); ++i)
    for (std::uint32_t t = p.sends_end(i); t < p.transfer_end(i); ++t) keys.push_back(Key{p.peer(t), t, p.tag(t)});
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return key_less(a, b) || (!key_less(b, a) && a.transfer < b.transfer);
  });
  for (std::size_t k = 1; k < keys.size(); ++k)
    if (!key_less(keys[k - 1], keys[k]))
      throw SimulationError(fmt::format("{} reuses tag {} between ranks {} and {}",
                                        where_transfer(plan, r, keys[k].transfer), keys[k].tag, keys[k].peer, r));
  return keys;
}

/// Send `t` of rank r found no receive left to match: another send of r used its tag first, or
/// nobody receives it.
[[noreturn]] void throw_unmatched_send(const Plan& plan, int r, std::uint32_t t) {
  const auto& p = plan.ranks[r];
  for (std::uint32_t u = 0; u < p.transfer_count(); ++u) {
    const bool is_send = u < p.sends_end(p.op_of_transfer(u));
    if (u != t && is_send && p.peer(u) == p.peer(t) && p.tag(u) == p.tag(t))
      throw SimulationError(fmt::format("{} reuses tag {} between ranks {} and {}",
                                        where_transfer(plan, r, std::max(u, t)), p.tag(t), r, p.peer(t)));
  }
  throw SimulationError(fmt::format("{} sends tag {} to rank {}, which never receives it", where_transfer(plan, r, t),
                                    p.tag(t), p.peer(t)));
}

}  // namespace

std::size_t MessageIndex::memory_bytes() const {
  std::size_t bytes = partner_.capacity() * sizeof(partner_[0]);
  for (const auto& p : partner_) bytes += p.capacity() * sizeof(std::uint32_t);
  return bytes;
}

MessageIndex index_messages(const Plan& plan) {
  const int n = plan.rank_count();
  const ValueTable* checked = nullptr;  // the value table found valid (ranks of a plan share one)
  for (int r = 0; r < n; ++r) {
    const ValueTable& values = plan.ranks[r].tables().values;
    if (checked != &values && all_values_valid(values)) checked = &values;
    check_ops(plan, r, checked == &values);
  }

  MessageIndex index;
  index.partner_.resize(static_cast<std::size_t>(n));
  std::vector<std::vector<Key>> recvs(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    index.partner_[r].assign(plan.ranks[r].transfer_count(), kUnmatched);
    recvs[r] = sorted_receives(plan, r);
  }
  // Where rank r's last send to each peer matched among that peer's receives: a rank's sends to
  // one peer mostly carry increasing tags, so the next match is usually the next key.
  std::vector<std::size_t> cursor(static_cast<std::size_t>(n), 0);
  for (int r = 0; r < n; ++r) {
    const auto& p = plan.ranks[r];
    std::vector<int> peers;  // the cursors this rank moved, reset after it
    for (OpIndex i = 0; i < p.size(); ++i) {
      for (std::uint32_t t = p.transfer_begin(i); t < p.sends_end(i); ++t) {
        const int peer = p.peer(t);
        const auto& theirs = recvs[peer];
        const Key wanted{r, 0, p.tag(t)};
        auto it = theirs.begin() + static_cast<std::ptrdiff_t>(cursor[peer]);
        if (it == theirs.end() || it->peer != r || it->tag != wanted.tag)
          it = std::lower_bound(theirs.begin(), theirs.end(), wanted, key_less);
        if (it == theirs.end() || key_less(wanted, *it) || index.partner_[peer][it->transfer] != kUnmatched)
          throw_unmatched_send(plan, r, t);
        if (cursor[peer] == 0) peers.push_back(peer);
        cursor[peer] = static_cast<std::size_t>(it - theirs.begin()) + 1;
        // Sizes are interned in the plan's value table: equal sizes have equal ids.
        if (p.bytes_id(t) != plan.ranks[peer].bytes_id(it->transfer))
          throw SimulationError(fmt::format("{} sends {} B but {} expects {} B", where(plan, r, i), p.bytes(t),
                                            where_transfer(plan, peer, it->transfer),
                                            plan.ranks[peer].bytes(it->transfer)));
        index.partner_[r][t] = it->transfer;
        index.partner_[peer][it->transfer] = t;
        ++index.messages_;
      }
    }
    for (int peer : peers) cursor[peer] = 0;
  }
  for (int r = 0; r < n; ++r)
    for (const Key& recv : recvs[r])
      if (index.partner_[r][recv.transfer] == kUnmatched)
        throw SimulationError(fmt::format("{} waits for tag {} from rank {}, which never sends it",
                                          where_transfer(plan, r, recv.transfer), recv.tag, recv.peer));
  return index;
}

void check_plan(const Plan& plan) { (void)index_messages(plan); }

}  // namespace clearfog::program
