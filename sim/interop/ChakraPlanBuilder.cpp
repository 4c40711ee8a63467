#include "interop/ChakraPlanBuilder.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

#include "collectives/Collective.hpp"
#include "collectives/CollectiveAlgorithmType.hpp"
#include "interop/ChakraImportError.hpp"
#include "interop/ChakraNodeAttrs.hpp"

namespace clearfog::interop {
namespace {

using ChakraProtoMsg::Node;
using program::Category;
using program::OpIndex;
using program::Stream;

/// The stream the `stream` attribute names (clearfog's names), else `fallback`.
Stream stream_of(const Node& node, Stream fallback) {
  const auto name = string_attr(node, "stream");
  for (int s = 0; name && s < program::kStreamCount; ++s)
    if (program::stream_name(static_cast<Stream>(s)) == *name) return static_cast<Stream>(s);
  return fallback;
}

/// The category the `category` attribute names (clearfog's names), else `fallback`.
Category category_of(const Node& node, Category fallback) {
  const auto name = string_attr(node, "category");
  for (int c = 0; name && c < program::kCategoryCount; ++c)
    if (program::category_name(static_cast<Category>(c)) == *name) return static_cast<Category>(c);
  return fallback;
}

/// clearfog's collective for the node's comm_type.
config::CollectiveOp collective_op_of(const ChakraGraph& g, std::size_t i) {
  const auto type = int_attr(g.node(i), "comm_type");
  if (!type) g.fail(i, "COMM_COLL_NODE without comm_type; allowed: a CollectiveCommType");
  switch (*type) {
    case ChakraProtoMsg::ALL_REDUCE: return config::CollectiveOp::AllReduce;
    case ChakraProtoMsg::REDUCE_SCATTER: return config::CollectiveOp::ReduceScatter;
    case ChakraProtoMsg::ALL_GATHER: return config::CollectiveOp::AllGather;
    case ChakraProtoMsg::ALL_TO_ALL: return config::CollectiveOp::AllToAll;
    case ChakraProtoMsg::BROADCAST: return config::CollectiveOp::Broadcast;
    case ChakraProtoMsg::REDUCE: return config::CollectiveOp::Reduce;
    default: break;
  }
  const std::string name = ChakraProtoMsg::CollectiveCommType_IsValid(static_cast<int>(*type))
                               ? ChakraProtoMsg::CollectiveCommType_Name(static_cast<int>(*type))
                               : std::to_string(*type);
  g.fail(i, fmt::format("comm_type {} is not modelled; allowed: ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER, ALL_TO_ALL, "
                         "BROADCAST, REDUCE",
                         name));
}

double comm_size_of(const ChakraGraph& g, std::size_t i) {
  const auto bytes = number_attr(g.node(i), "comm_size");
  if (!bytes || *bytes < 0) g.fail(i, "no comm_size (or a negative one); allowed: the payload in bytes, >= 0");
  return *bytes;
}

/// The members of the collective, ascending: comm_group, or every rank when absent.
std::vector<int> group_of(const ChakraGraph& g, std::size_t i, int rank, int ranks) {
  std::vector<int> group;
  if (const auto listed = int_list_attr(g.node(i), "comm_group")) {
    for (const auto m : *listed) {
      if (m < 0 || m >= ranks)
        g.fail(i, fmt::format("comm_group names rank {}; allowed: ranks 0 .. {}", m, ranks - 1));
      group.push_back(static_cast<int>(m));
    }
  } else {
    for (int m = 0; m < ranks; ++m) group.push_back(m);
  }
  std::sort(group.begin(), group.end());
  if (std::adjacent_find(group.begin(), group.end()) != group.end())
    g.fail(i, "comm_group names a rank twice; allowed: each member once");
  if (!std::binary_search(group.begin(), group.end(), rank))
    g.fail(i, fmt::format("comm_group [{}] does not hold this file's rank {}; allowed: groups the rank belongs to",
                           fmt::join(group, ", "), rank));
  return group;
}

bool is_message(const Node& node) {
  return node.type() == ChakraProtoMsg::COMM_SEND_NODE || node.type() == ChakraProtoMsg::COMM_RECV_NODE;
}

}  // namespace

ChakraPlanBuilder::ChakraPlanBuilder(const std::vector<ChakraGraph>& ranks,
                                     const parallel::GroupCollectives& collectives, ComputePricing pricing)
    : ranks_(ranks), collectives_(collectives), pricing_(std::move(pricing)), messages_(ranks, tags_),
      state_(ranks.size()) {
  plan_.ranks.resize(std::max(ranks.size(), static_cast<std::size_t>(collectives.endpoints)));
  for (std::size_t r = 0; r < ranks.size(); ++r) state_[r].op_of_node.assign(ranks[r].size(), 0);
}

program::Plan ChakraPlanBuilder::build() {
  const auto done = [&] {
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      if (state_[r].cursor < ranks_[r].size()) return false;
    return true;
  };
  while (!done()) {
    bool progress = false;
    for (int r = 0; r < static_cast<int>(ranks_.size()); ++r) progress = advance(r) || progress;
    if (!progress) report_deadlock();
  }
  return std::move(plan_);
}

/// Adds the rank's nodes in order until it waits at a collective; whether it added any.
bool ChakraPlanBuilder::advance(int rank) {
  RankState& s = state_[static_cast<std::size_t>(rank)];
  const ChakraGraph& g = ranks_[static_cast<std::size_t>(rank)];
  bool progress = false;
  while (s.cursor < g.size() && !s.waiting) {
    const std::size_t i = g.order()[s.cursor];
    switch (g.node(i).type()) {
      case ChakraProtoMsg::COMP_NODE:
        add_compute(rank, i);
        ++s.cursor;
        break;
      case ChakraProtoMsg::COMM_SEND_NODE:
      case ChakraProtoMsg::COMM_RECV_NODE: s.cursor += add_exchange(rank); break;
      case ChakraProtoMsg::COMM_COLL_NODE:
        if (!arrive(rank, i)) return progress;
        break;
      default: g.fail(i, "node type not modelled");  // check_node_types() rejected these first
    }
    progress = true;
  }
  return progress;
}

std::vector<OpIndex> ChakraPlanBuilder::deps_of(int rank, std::size_t position) const {
  const RankState& s = state_[static_cast<std::size_t>(rank)];
  std::vector<OpIndex> deps;
  for (const auto d : ranks_[static_cast<std::size_t>(rank)].deps(position)) deps.push_back(s.op_of_node[d]);
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  return deps;
}

void ChakraPlanBuilder::add_compute(int rank, std::size_t position) {
  const ChakraGraph& g = ranks_[static_cast<std::size_t>(rank)];
  const Node& node = g.node(position);
  state_[static_cast<std::size_t>(rank)].op_of_node[position] = plan_.ranks[static_cast<std::size_t>(rank)].add_compute(
      stream_of(node, Stream::Compute), category_of(node, Category::Forward), node.name(), pricing_(g, position),
      deps_of(rank, position));
}

/// The send and receive nodes at the cursor that are posted together (same dependencies, stream
/// and category) as one exchange; returns how many nodes it took.
std::size_t ChakraPlanBuilder::add_exchange(int rank) {
  RankState& s = state_[static_cast<std::size_t>(rank)];
  const ChakraGraph& g = ranks_[static_cast<std::size_t>(rank)];
  const std::size_t first = g.order()[s.cursor];
  const Node& head = g.node(first);
  const Stream stream = stream_of(head, Stream::P2p);
  const Category category = category_of(head, Category::PipelineComm);
  std::vector<program::Transfer> sends, recvs;
  std::vector<std::size_t> taken;
  for (std::size_t c = s.cursor; c < g.size(); ++c) {
    const std::size_t i = g.order()[c];
    const Node& node = g.node(i);
    if (!is_message(node) || g.deps(i) != g.deps(first) || stream_of(node, Stream::P2p) != stream ||
        category_of(node, Category::PipelineComm) != category)
      break;
    (node.type() == ChakraProtoMsg::COMM_SEND_NODE ? sends : recvs).push_back(messages_.transfer(rank, i));
    taken.push_back(i);
  }
  const OpIndex op = plan_.ranks[static_cast<std::size_t>(rank)].add_exchange(stream, category, head.name(), sends,
                                                                                recvs, deps_of(rank, first));
  for (const auto i : taken) s.op_of_node[i] = op;
  return taken.size();
}

/// The rank reaches the collective at `position`; adds it once every member has. Whether it was
/// added.
bool ChakraPlanBuilder::arrive(int rank, std::size_t position) {
  RankState& s = state_[static_cast<std::size_t>(rank)];
  const ChakraGraph& g = ranks_[static_cast<std::size_t>(rank)];
  const auto group = group_of(g, position, rank, static_cast<int>(ranks_.size()));
  const Meeting meeting{group, s.collectives_seen[group]++};
  auto& arrivals = meetings_[meeting];
  arrivals.emplace_back(rank, position);
  s.waiting = true;
  if (arrivals.size() < group.size()) return false;
  std::sort(arrivals.begin(), arrivals.end());
  check_agree(meeting, arrivals);
  add_collective(meeting, arrivals);
  for (const auto& [member, p] : arrivals) {
    state_[static_cast<std::size_t>(member)].waiting = false;
    ++state_[static_cast<std::size_t>(member)].cursor;
  }
  meetings_.erase(meeting);
  return true;
}

/// Every member's node has the same comm_type and comm_size.
void ChakraPlanBuilder::check_agree(const Meeting& meeting, const std::vector<Arrival>& arrivals) const {
  const auto& [r0, p0] = arrivals.front();
  const ChakraGraph& g0 = ranks_[static_cast<std::size_t>(r0)];
  const auto op0 = collective_op_of(g0, p0);
  const double bytes0 = comm_size_of(g0, p0);
  for (const auto& [r, p] : arrivals) {
    const ChakraGraph& g = ranks_[static_cast<std::size_t>(r)];
    const auto op = collective_op_of(g, p);
    const double bytes = comm_size_of(g, p);
    if (op == op0 && bytes == bytes0) continue;
    g.fail(p,
         fmt::format("collective {} over ranks [{}] is {} of {} B here but {} of {} B at {} of {}; allowed: the same "
                     "comm_type and comm_size on every member (collectives over a group match in their order)",
                     meeting.second + 1, fmt::join(meeting.first, ", "), config::collective_op_name(op), bytes,
                     config::collective_op_name(op0), bytes0, g0.where(p0), g0.file().string()));
  }
}

/// An all-to-all exported as DeepEP's (algorithm hierarchical, network_share s) runs as the planner
/// ran it: the hierarchical all-to-all with that share. Any other algorithm is chosen anew for the
/// platform, as for every other collective: it follows from the platform, DeepEP's does not.
void ChakraPlanBuilder::apply_deduplication(const ChakraGraph& g, std::size_t p,
                                            collectives::CollectiveRequest& request) const {
  const Node& node = g.node(p);
  if (string_attr(node, "algorithm") != "hierarchical") return;
  const double share = number_attr(node, "network_share").value_or(1.0);
  if (!(share > 0 && share <= 1))
    g.fail(p, fmt::format("network_share must be in (0, 1] (the network bytes per byte its split sends another "
                           "node), got {}",
                           share));
  const int members = static_cast<int>(request.ranks.size()), per_node = request.ranks_per_node;
  if (per_node <= 0 || per_node >= members || members % per_node != 0)
    g.fail(p,
         fmt::format("a hierarchical all-to-all needs a group of whole nodes, several of them, on this platform; "
                     "its {} members are {} per node",
                     members, per_node));
  request.algorithm = collectives::collective_algorithm("hierarchical");
  request.network_share = share;
}

void ChakraPlanBuilder::add_collective(const Meeting& meeting, const std::vector<Arrival>& arrivals) {
  const auto& [r0, p0] = arrivals.front();
  const ChakraGraph& g0 = ranks_[static_cast<std::size_t>(r0)];
  const Node& head = g0.node(p0);
  const auto op = collective_op_of(g0, p0);
  auto request = collectives_.request(op, meeting.first, comm_size_of(g0, p0));
  if (op == config::CollectiveOp::AllToAll) {
    request.matrix = all_to_all_v_matrix(ranks_, meeting.first, arrivals);
    apply_deduplication(g0, p0, request);
  } else
    for (const auto& [r, p] : arrivals) check_no_per_peer_sizes(ranks_[static_cast<std::size_t>(r)], p);
  request.stream = stream_of(head, Stream::Comm);
  request.category = category_of(head, Category::DataParallelComm);
  request.name = head.name().empty() ? fmt::format("coll{}", head.id()) : head.name();
  request.deps.clear();
  for (const auto& [r, p] : arrivals) request.deps.push_back(deps_of(r, p));
  const auto ends = collectives::append_collective(plan_, request, tags_);
  for (std::size_t m = 0; m < arrivals.size(); ++m)
    state_[static_cast<std::size_t>(arrivals[m].first)].op_of_node[arrivals[m].second] = ends[m];
}

void ChakraPlanBuilder::report_deadlock() const {
  for (const auto& [meeting, arrivals] : meetings_) {
    std::set<int> missing(meeting.first.begin(), meeting.first.end());
    for (const auto& a : arrivals) missing.erase(a.first);
    const auto& [r, p] = arrivals.front();
    const ChakraGraph& g = ranks_[static_cast<std::size_t>(r)];
    g.fail(p,
         fmt::format("collective {} over ranks [{}] is never reached by rank(s) {} (their trace has fewer collectives "
                     "over the group, or waits at another collective first); allowed: the same collectives over a "
                     "group, in the same order, in every member's trace",
                     meeting.second + 1, fmt::join(meeting.first, ", "), fmt::join(missing, ", ")));
  }
  throw ChakraImportError("", "", "the traces cannot be ordered");  // unreachable: a rank that waits has arrived
}

}  // namespace clearfog::interop
