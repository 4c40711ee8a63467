#pragma once
// The point-to-point messages of a set of Chakra traces: every COMM_SEND_NODE matched with the
// COMM_RECV_NODE of the same (comm_src, comm_dst, comm_tag), sizes checked, and each pair given a
// fresh plan tag (the traces' tags may collide with the ones the collectives draw).
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "collectives/TagAllocator.hpp"
#include "interop/ChakraGraph.hpp"
#include "program/TransferList.hpp"

namespace clearfog::interop {

class ChakraMessages {
public:
  /// Throws ChakraImportError naming the node and its file for a send or receive without its
  /// match, a peer out of range, a (src, dst, tag) used twice, or sizes that differ.
  ChakraMessages(const std::vector<ChakraGraph>& ranks, collectives::TagAllocator& tags);

  /// The transfer of the send or receive node at `position` of `rank`'s trace.
  [[nodiscard]] const program::Transfer& transfer(int rank, std::size_t position) const {
    return transfers_.at({rank, position});
  }

private:
  struct End {
    int rank = 0;
    std::size_t position = 0;
    double bytes = 0;
  };
  struct Key {
    std::int64_t src = 0, dst = 0, tag = 0;
    friend auto operator<=>(const Key&, const Key&) = default;
  };
  void collect(const std::vector<ChakraGraph>& ranks);
  void match(const std::vector<ChakraGraph>& ranks, collectives::TagAllocator& tags);

  std::map<Key, End> sends_, recvs_;
  std::map<std::pair<int, std::size_t>, program::Transfer> transfers_;
};

}  // namespace clearfog::interop
