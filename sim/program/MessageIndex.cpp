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

bool key_less(const Key& a, const Key& b) { return a.peer != b.peer ? a.peer < b.peer : a.tag < b.tag; }

std::string where(const Plan& plan, int rank, OpIndex op) {
  return fmt::format("rank {} op {} ({})", rank, op, plan.ranks[rank].name(op));
}

std::string where_transfer(const Plan& plan, int rank, std::uint32_t t) {
  return where(plan, rank, plan.ranks[rank].op_of_transfer(t));
}

void check_ops(const Plan& plan, int r) {
  const auto& p = plan.ranks[r];
  const int n = plan.rank_count();
  for (OpIndex i = 0; i < p.size(); ++i) {
    // Deps point backwards only: this makes every plan acyclic by construction.
    for (OpIndex d : p.deps(i))
      if (d >= i) throw SimulationError(fmt::format("{} depends on op {}, which is not earlier", where(plan, r, i), d));
    if (!(p.record(i).seconds >= 0))
      throw SimulationError(fmt::format("{} has a negative or NaN duration", where(plan, r, i)));
    for (std::uint32_t t = p.transfer_begin(i); t < p.transfer_end(i); ++t) {
      const Transfer& x = p.transfers()[t];
      if (x.peer < 0 || x.peer >= n || x.peer == r)
        throw SimulationError(
            fmt::format("{} names peer {} (ranks 0..{}, not itself)", where(plan, r, i), x.peer, n - 1));
      if (!(x.bytes >= 0)) throw SimulationError(fmt::format("{} moves a negative size", where(plan, r, i)));
    }
  }
}

/// The sends (or receives) of rank r as keys sorted by (peer, tag); a repeated key is an error.
std::vector<Key> sorted_keys(const Plan& plan, int r, bool sends) {
  const auto& p = plan.ranks[r];
  std::vector<Key> keys;
  for (OpIndex i = 0; i < p.size(); ++i) {
    const auto& rec = p.record(i);
    const std::uint32_t begin = sends ? rec.first_transfer : rec.first_transfer + rec.send_count;
    const std::uint32_t end = sends ? rec.first_transfer + rec.send_count : p.transfer_end(i);
    for (std::uint32_t t = begin; t < end; ++t) keys.push_back(Key{p.transfers()[t].peer, t, p.transfers()[t].tag});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return key_less(a, b) || (!key_less(b, a) && a.transfer < b.transfer);
  });
  for (std::size_t k = 1; k < keys.size(); ++k)
    if (!key_less(keys[k - 1], keys[k])) {
      const int src = sends ? r : keys[k].peer;
      const int dst = sends ? keys[k].peer : r;
      throw SimulationError(fmt::format("{} reuses tag {} between ranks {} and {}",
                                        where_transfer(plan, r, keys[k].transfer), keys[k].tag, src, dst));
    }
  return keys;
}

}  // namespace

std::size_t MessageIndex::memory_bytes() const {
  std::size_t bytes = partner_.capacity() * sizeof(partner_[0]);
  for (const auto& p : partner_) bytes += p.capacity() * sizeof(std::uint32_t);
  return bytes;
}

MessageIndex index_messages(const Plan& plan) {
  const int n = plan.rank_count();
  for (int r = 0; r < n; ++r) check_ops(plan, r);

  MessageIndex index;
  index.partner_.resize(static_cast<std::size_t>(n));
  std::vector<std::vector<Key>> recvs(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    index.partner_[r].assign(plan.ranks[r].transfers().size(), kUnmatched);
    recvs[r] = sorted_keys(plan, r, false);
  }
  for (int r = 0; r < n; ++r) {
    const auto& transfers = plan.ranks[r].transfers();
    for (const Key& send : sorted_keys(plan, r, true)) {
      const auto& theirs = recvs[send.peer];
      const Key wanted{r, 0, send.tag};
      const auto it = std::lower_bound(theirs.begin(), theirs.end(), wanted, key_less);
      if (it == theirs.end() || key_less(wanted, *it))
        throw SimulationError(fmt::format("{} sends tag {} to rank {}, which never receives it",
                                          where_transfer(plan, r, send.transfer), send.tag, send.peer));
      const double sent = transfers[send.transfer].bytes;
      const double expected = plan.ranks[send.peer].transfers()[it->transfer].bytes;
      if (sent != expected)
        throw SimulationError(fmt::format("{} sends {} B but {} expects {} B", where_transfer(plan, r, send.transfer),
                                          sent, where_transfer(plan, send.peer, it->transfer), expected));
      index.partner_[r][send.transfer] = it->transfer;
      index.partner_[send.peer][it->transfer] = send.transfer;
      ++index.messages_;
    }
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
