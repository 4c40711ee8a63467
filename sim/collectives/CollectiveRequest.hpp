#pragma once
// What a caller asks of the collective layer: one collective over a group of plan ranks, its
// algorithm resolved, with the costs the platform gives it (driver/CollectiveRun.cpp fills one from
// a platform). Collective.hpp plans it; each algorithm's type reads the fields it needs.
#include <memory>
#include <string>
#include <vector>

#include "collectives/CollectiveLog.hpp"
#include "config/CollectiveSpec.hpp"
#include "program/Program.hpp"

namespace clearfog::collectives {

struct CollectiveRequest {
  config::CollectiveOp op = config::CollectiveOp::AllReduce;
  config::CollectiveAlgorithm algorithm;  // concrete: never nccl or best here
  config::Fidelity fidelity = config::Fidelity::Step;
  std::vector<int> ranks;  // group members (global ranks of the plan), in ring order
  /// B, nccl-tests convention: all_reduce, broadcast, reduce: the buffer; all_gather and
  /// reduce_scatter: the total (count x members); all_to_all: each member's send buffer;
  /// sendrecv: the message.
  double bytes = 0;
  /// all_to_all only: bytes member i sends member j (all-to-all-v); empty: `bytes / members` to each.
  std::vector<std::vector<double>> matrix;
  /// all_to_all, hierarchical: bytes crossing the network from a member to another node per byte
  /// its matrix sends that node's members (HierarchicalAllToAll.hpp): 1, or less where tokens
  /// several members of a node want travel once (DeepEP).
  double network_share = 1;
  /// all_to_all, hierarchical: wire bytes on a node's links per wire byte of `bytes`/`matrix` (whose
  /// protocol overhead is the network's): the ratio of the two protocols' efficiencies.
  double node_scale = 1;
  int root = 0;             // position in `ranks` of the root (broadcast, reduce); sendrecv: ranks = {src, dst}
  int ranks_per_node = 0;   // hierarchical, tree: this many consecutive members share a node (0: unknown)
  /// NCCL channels. Rings: the buffer is split over them, channel c visiting each node's members
  /// rotated by c, so that it leaves and enters every node through different devices — and,
  /// rail-optimized, through different NICs. Rotations repeat every ranks_per_node channels and are
  /// all the same cycle inside one node, so only the distinct rings are planned, each carrying its
  /// channels' share. Other algorithms: recorded only (their chunk_B already reflects them).
  int channels = 1;
  /// Ring family: the cycles the channels take through each node's block of members (positions
  /// 0 … m-1 of a block, m = ranks_per_node, or every member on one node), from the direct links
  /// between them (topology/RingFamily.hpp): a ring and its reverse on a ring of links. Each cycle
  /// carries an equal share, and across nodes each is rotated as above. Empty: the members' own
  /// order alone.
  std::vector<std::vector<int>> rings;
  /// Algorithms that reduce in switches (in-switch, nvls-tree): each node's reducing switch, in the
  /// members' node order, as plan ranks (ClusterTopology::reduction_switch).
  std::vector<int> switch_endpoints;
  double tree_scale = 1;  // nvls-tree: wire bytes across nodes per wire byte through a switch
  double step_overhead_s = 0;  // paid by every step (Exchange::overhead_s), chunk steps included
  double launch_overhead_s = 0;  // paid once, by each member's first step (NVLS setup)
  double chunk_B = 0;          // pipelining chunk, B (0: none)
  /// Fluid fidelity only: the latency of one step's messages (e.g. the route latency between
  /// members). The planner does not know routes, so the caller says what the folded steps would
  /// have paid; the fluid exchange adds (steps - 1) of it to its overhead, the last step's
  /// latency being paid by its own transfers.
  double step_latency_s = 0;
  program::Stream stream = program::Stream::Comm;
  program::Category category = program::Category::DataParallelComm;
  std::string name = "collective";  // op names: "<name>.s<round>" (step) or "<name>" (fluid)
  std::vector<std::vector<program::OpIndex>> deps;  // per member: ops to wait for first (empty: none)
  /// ranks[i] is member caller_index[i] of the group as the caller listed it (the platform put the
  /// group in ring order): `deps` and `matrix` are then in the caller's order, and so are the ops
  /// append_collective returns. Empty: `ranks` is the caller's order.
  std::vector<int> caller_index;
  /// Where to record what ran (CollectiveLog.hpp); null: not recorded. The protocol and payload
  /// below are only recorded: the costs above already carry them.
  std::shared_ptr<CollectiveLog> log;
  config::Protocol protocol = config::Protocol::Simple;
  double payload_B = -1;  // the caller's bytes before protocol overhead; < 0: `bytes`
};

/// An all-to-all-v's per-pair bytes as they travel: the payload matrix inflated by the protocol's
/// overhead, as `bytes` is for an even all-to-all (bytes / payload_B = 1 / efficiency).
std::vector<std::vector<double>> wire_matrix(const CollectiveRequest& request);

}  // namespace clearfog::collectives
