#include "interop/ChakraMessages.hpp"

#include <fmt/format.h>

#include "interop/ChakraImportError.hpp"
#include "interop/ChakraNodeAttrs.hpp"

namespace clearfog::interop {

using ChakraProtoMsg::Node;

void ChakraMessages::collect(const std::vector<ChakraGraph>& ranks) {
  const auto n = static_cast<std::int64_t>(ranks.size());
  for (int r = 0; r < static_cast<int>(ranks.size()); ++r) {
    const ChakraGraph& g = ranks[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < g.size(); ++i) {
      const Node& node = g.node(i);
      const bool send = node.type() == ChakraProtoMsg::COMM_SEND_NODE;
      if (!send && node.type() != ChakraProtoMsg::COMM_RECV_NODE) continue;
      const auto fail = [&](const std::string& message) { throw ChakraImportError(g.file().string(), g.where(i), message); };
      const Key key{int_attr(node, "comm_src").value_or(r), int_attr(node, "comm_dst").value_or(r),
                    int_attr(node, "comm_tag").value_or(0)};
      const std::int64_t own = send ? key.src : key.dst, peer = send ? key.dst : key.src;
      if (own != r) fail(fmt::format("{} {} on rank {}; allowed: {} {}", send ? "comm_src" : "comm_dst", own, r,
                                     send ? "comm_src" : "comm_dst", r));
      if (peer < 0 || peer >= n || peer == r)
        fail(fmt::format("peer rank {} out of range; allowed: another rank of 0 .. {}", peer, n - 1));
      const double bytes = number_attr(node, "comm_size").value_or(-1);
      if (bytes < 0) fail("no comm_size (or a negative one); allowed: the message size in bytes, >= 0");
      if (!(send ? sends_ : recvs_).emplace(key, End{r, i, bytes}).second)
        fail(fmt::format("a second {} of (src {}, dst {}, tag {}); allowed: one per (src, dst, tag)",
                         send ? "send" : "receive", key.src, key.dst, key.tag));
    }
  }
}

void ChakraMessages::match(const std::vector<ChakraGraph>& ranks, collectives::TagAllocator& tags) {
  const auto place = [&](const End& e) {
    const ChakraGraph& g = ranks[static_cast<std::size_t>(e.rank)];
    return fmt::format("{} of {}", g.where(e.position), g.file().string());
  };
  const auto unmatched = [&](const Key& key, const End& e, bool send) {
    const ChakraGraph& g = ranks[static_cast<std::size_t>(e.rank)];
    throw ChakraImportError(g.file().string(), g.where(e.position),
                            fmt::format("{} (src {}, dst {}, tag {}) has no matching {} on rank {}; allowed: every "
                                        "COMM_SEND_NODE matched by a COMM_RECV_NODE of the same src, dst and tag",
                                        send ? "send" : "receive", key.src, key.dst, key.tag,
                                        send ? "COMM_RECV_NODE" : "COMM_SEND_NODE", send ? key.dst : key.src));
  };
  for (const auto& [key, recv] : recvs_)
    if (!sends_.count(key)) unmatched(key, recv, false);
  for (const auto& [key, send] : sends_) {
    const auto it = recvs_.find(key);
    if (it == recvs_.end()) unmatched(key, send, true);
    const End& recv = it->second;
    if (send.bytes != recv.bytes)
      throw ChakraImportError(ranks[static_cast<std::size_t>(send.rank)].file().string(),
                              ranks[static_cast<std::size_t>(send.rank)].where(send.position),
                              fmt::format("sends {} B but its receive, {}, expects {} B; allowed: equal comm_size",
                                          send.bytes, place(recv), recv.bytes));
    const std::uint64_t tag = tags.allocate(1);
    transfers_[{send.rank, send.position}] = program::Transfer{recv.rank, send.bytes, tag};
    transfers_[{recv.rank, recv.position}] = program::Transfer{send.rank, send.bytes, tag};
  }
}

ChakraMessages::ChakraMessages(const std::vector<ChakraGraph>& ranks, collectives::TagAllocator& tags) {
  collect(ranks);
  match(ranks, tags);
}

}  // namespace clearfog::interop
