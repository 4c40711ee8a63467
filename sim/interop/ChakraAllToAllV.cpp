#include "interop/ChakraAllToAllV.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <string>

#include "interop/ChakraImportError.hpp"
#include "interop/ChakraNodeAttrs.hpp"

namespace clearfog::interop {
namespace {

constexpr const char* kSendSizes = "comm_send_sizes";
constexpr const char* kRecvSizes = "comm_recv_sizes";

/// The members as the node lists them (comm_group, else every rank): the order of its sizes.
std::vector<int> listed_members(const ChakraGraph& g, std::size_t i, int ranks) {
  std::vector<int> members;
  if (const auto listed = int_list_attr(g.node(i), "comm_group"))
    for (const auto m : *listed) members.push_back(static_cast<int>(m));
  else
    for (int m = 0; m < ranks; ++m) members.push_back(m);
  return members;
}

/// The node's `name` list as bytes per member of the ascending `group` (nullopt when absent),
/// moved from the order of its comm_group.
std::optional<std::vector<double>> sizes_by_member(const ChakraGraph& g, std::size_t i, const char* name,
                                                   const std::vector<int>& group, int ranks) {
  const auto* attr = find_attr(g.node(i), name);
  if (!attr) return std::nullopt;
  const auto sizes = int_list_attr(g.node(i), name);
  const auto members = listed_members(g, i, ranks);
  if (!sizes || sizes->size() != members.size())
    g.fail(i, fmt::format("{} has {} entries for {} members of comm_group; allowed: an int64 list of bytes, one per "
                           "member in comm_group's order",
                           name, sizes ? sizes->size() : 0, members.size()));
  std::vector<double> by_member(group.size(), 0.0);
  for (std::size_t k = 0; k < members.size(); ++k) {
    if ((*sizes)[k] < 0)
      g.fail(i, fmt::format("{} gives {} B for rank {}; allowed: bytes >= 0", name, (*sizes)[k], members[k]));
    const auto at = std::lower_bound(group.begin(), group.end(), members[k]);
    by_member[static_cast<std::size_t>(at - group.begin())] = static_cast<double>((*sizes)[k]);
  }
  return by_member;
}

/// Each member's comm_recv_sizes, where given, is what `matrix` has its senders send it.
void check_receives(const std::vector<ChakraGraph>& ranks, const std::vector<int>& group,
                    const std::vector<CollectiveArrival>& arrivals, const std::vector<std::vector<double>>& matrix) {
  for (std::size_t j = 0; j < arrivals.size(); ++j) {
    const auto& [rank, position] = arrivals[j];
    const ChakraGraph& g = ranks[static_cast<std::size_t>(rank)];
    const auto received = sizes_by_member(g, position, kRecvSizes, group, static_cast<int>(ranks.size()));
    if (!received) continue;
    for (std::size_t i = 0; i < group.size(); ++i)
      if ((*received)[i] != matrix[i][j])
        g.fail(position,
             fmt::format("{} expects {} B from rank {}, whose {} sends {} B; allowed: each member's receive size "
                         "equal to its sender's send size",
                         kRecvSizes, (*received)[i], group[i], kSendSizes, matrix[i][j]));
  }
}

}  // namespace

std::vector<std::vector<double>> all_to_all_v_matrix(const std::vector<ChakraGraph>& ranks,
                                                     const std::vector<int>& group,
                                                     const std::vector<CollectiveArrival>& arrivals) {
  const int rank_count = static_cast<int>(ranks.size());
  const auto graph = [&](const CollectiveArrival& a) -> const ChakraGraph& {
    return ranks[static_cast<std::size_t>(a.first)];
  };
  std::vector<std::vector<double>> matrix;
  std::optional<CollectiveArrival> with, without;  // the first member with sizes, without them
  for (const auto& a : arrivals) {
    if (auto row = sizes_by_member(graph(a), a.second, kSendSizes, group, rank_count)) {
      matrix.push_back(std::move(*row));
      if (!with) with = a;
    } else if (!without) {
      without = a;
    }
  }
  if (!with) {
    // Receive sizes alone cannot say who sends them: refuse them rather than import an even split.
    for (const auto& a : arrivals)
      if (find_attr(graph(a).node(a.second), kRecvSizes))
        graph(a).fail(a.second,
             fmt::format("{} without {} on any member of this all-to-all over ranks [{}]; allowed: send sizes on "
                         "every member (receive sizes optional), or neither (an even all-to-all)",
                         kRecvSizes, kSendSizes, fmt::join(group, ", ")));
    return {};
  }
  if (without)
    graph(*without).fail(without->second,
         fmt::format("this all-to-all over ranks [{}] has no {} but {} of {} has; allowed: per-peer sizes on every "
                     "member or on none (an even all-to-all)",
                     fmt::join(group, ", "), kSendSizes, graph(*with).where(with->second),
                     graph(*with).file().string()));
  check_receives(ranks, group, arrivals, matrix);
  return matrix;
}

void check_no_per_peer_sizes(const ChakraGraph& rank, std::size_t position) {
  for (const char* name : {kSendSizes, kRecvSizes})
    if (find_attr(rank.node(position), name))
      rank.fail(position,
           fmt::format("{} on a collective that is not ALL_TO_ALL; allowed: per-peer sizes on ALL_TO_ALL only", name));
}

}  // namespace clearfog::interop
