#pragma once
// An all-to-all-v's per-peer split in Chakra traces, a clearfog extension (Chakra's ALL_TO_ALL has
// one comm_size; docs/interop.md): each member's COMM_COLL_NODE lists comm_send_sizes, the bytes it
// sends each member, and comm_recv_sizes, the bytes it receives from each, both int64 lists in the
// order of its comm_group (every rank when absent), as NCCL-style alltoallv send and receive counts.
#include <cstddef>
#include <utility>
#include <vector>

#include "interop/ChakraGraph.hpp"

namespace clearfog::interop {

/// A member's node at a collective: (rank, position in that rank's graph).
using CollectiveArrival = std::pair<int, std::size_t>;

/// The bytes group[i] sends group[j] at the all-to-all met by `arrivals` (one per member of the
/// ascending `group`, in the same order; `ranks` indexed by rank), from the members'
/// comm_send_sizes; empty when no member gives them (an even all-to-all). Throws ChakraImportError
/// naming the node when only some members give them, a list is not one size per member, a size
/// is negative, or a comm_recv_sizes entry is not what its sender sends.
std::vector<std::vector<double>> all_to_all_v_matrix(const std::vector<ChakraGraph>& ranks,
                                                     const std::vector<int>& group,
                                                     const std::vector<CollectiveArrival>& arrivals);

/// Throws ChakraImportError when the node at `position` of `rank` gives per-peer sizes on a
/// collective other than an all-to-all.
void check_no_per_peer_sizes(const ChakraGraph& rank, std::size_t position);

}  // namespace clearfog::interop
