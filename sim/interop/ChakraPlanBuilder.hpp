#pragma once
// Turns the Chakra traces of every rank into clearfog's per-rank programs (docs/interop.md):
// COMP_NODE -> a compute op; COMM_SEND_NODE / COMM_RECV_NODE -> exchanges (nodes posted together
// become one exchange); COMM_COLL_NODE -> the platform's collective over comm_group (an
// all-to-all-v when its members give per-peer sizes, ChakraAllToAllV.hpp), matched across its
// members by its place among the collectives over that group; ctrl_deps and data_deps -> op
// dependencies. Ranks advance node by node in dependency order and meet at collectives.
#include <cstddef>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "collectives/TagAllocator.hpp"
#include "config/CollectiveSpec.hpp"
#include "interop/ChakraAllToAllV.hpp"
#include "interop/ChakraGraph.hpp"
#include "interop/ChakraMessages.hpp"
#include "parallel/GroupCollectives.hpp"
#include "program/Program.hpp"

namespace clearfog::interop {

/// The seconds a COMP_NODE takes (its traced duration, or the kernel model's price).
using ComputePricing = std::function<double(const ChakraGraph& rank, std::size_t position)>;

class ChakraPlanBuilder {
public:
  ChakraPlanBuilder(const std::vector<ChakraGraph>& ranks, const parallel::GroupCollectives& collectives,
                    ComputePricing pricing);
  /// Throws ChakraImportError for collectives whose members disagree or never meet.
  program::Plan build();

private:
  struct RankState {
    std::size_t cursor = 0;                   // into the rank's order()
    bool waiting = false;                     // at a collective, for its other members
    std::vector<program::OpIndex> op_of_node;  // by position
    std::map<std::vector<int>, int> collectives_seen;  // per group, in this rank's order
  };
  using Meeting = std::pair<std::vector<int>, int>;  // group, its n-th collective
  using Arrival = CollectiveArrival;                 // rank, position

  bool advance(int rank);
  std::vector<program::OpIndex> deps_of(int rank, std::size_t position) const;
  void add_compute(int rank, std::size_t position);
  std::size_t add_exchange(int rank);
  bool arrive(int rank, std::size_t position);
  void check_agree(const Meeting& meeting, const std::vector<Arrival>& arrivals) const;
  void add_collective(const Meeting& meeting, const std::vector<Arrival>& arrivals);
  void apply_deduplication(const ChakraGraph& g, std::size_t position, collectives::CollectiveRequest& request) const;
  [[noreturn]] void report_deadlock() const;

  const std::vector<ChakraGraph>& ranks_;
  const parallel::GroupCollectives& collectives_;
  ComputePricing pricing_;
  program::Plan plan_;
  collectives::TagAllocator tags_;
  ChakraMessages messages_;
  std::vector<RankState> state_;
  std::map<Meeting, std::vector<Arrival>> meetings_;
};

}  // namespace clearfog::interop
