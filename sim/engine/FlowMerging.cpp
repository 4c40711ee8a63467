#include "engine/FlowMerging.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace sg4 = simgrid::s4u;

namespace clearfog::engine {
namespace {

/// A send transfer and what makes it identical to another of its op.
struct Member {
  int peer;
  program::OpIndex recv_op;
  program::ValueId bytes;
  std::uint32_t transfer;

  [[nodiscard]] auto key() const { return std::tie(peer, recv_op, bytes); }
};

/// Groups the sends of every exchange of `rank` into identical transfers; returns the group count.
std::uint64_t group_sends(const program::Plan& plan, const program::MessageIndex& index, int rank,
                          std::vector<std::uint32_t>& carried) {
  const program::RankProgram& p = plan.ranks[rank];
  carried.assign(p.transfer_count(), 0);
  std::uint64_t groups = 0;
  std::vector<Member> members;
  for (program::OpIndex op = 0; op < p.size(); ++op) {
    if (p.kind(op) != program::OpKind::Exchange) continue;
    members.clear();
    for (std::uint32_t t = p.transfer_begin(op); t < p.sends_end(op); ++t) {
      const int peer = p.peer(t);
      members.push_back({peer, plan.ranks[peer].op_of_transfer(index.partner(rank, t)), p.bytes_id(t), t});
    }
    std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
      return std::tie(a.peer, a.recv_op, a.bytes, a.transfer) < std::tie(b.peer, b.recv_op, b.bytes, b.transfer);
    });
    for (std::size_t i = 0; i < members.size();) {
      std::size_t j = i + 1;
      while (j < members.size() && members[j].key() == members[i].key()) ++j;
      carried[members[i].transfer] = static_cast<std::uint32_t>(j - i);
      ++groups;
      i = j;
    }
  }
  return groups;
}

struct Route {
  std::vector<sg4::Link*> links;
  double latency_s = 0;
};

/// Why `link` cannot carry a comm of `k` transfers beside those already seen on it, or "". A link
/// that gives each flow its own share (a fat pipe, wifi, a non-linear one) would give k transfers
/// k shares and their one comm one.
std::string link_refusal(const sg4::Link* link, std::uint32_t k,
                         std::unordered_map<const sg4::Link*, std::uint32_t>& carried_on) {
  auto [use, first] = carried_on.try_emplace(link, k);
  if (!first && use->second != k)
    return fmt::format("link {} carries comms of {} and of {} identical transfers", link->get_cname(), use->second, k);
  if (k > 1 && link->get_sharing_policy() != sg4::Link::SharingPolicy::SHARED)
    return fmt::format("link {} does not share its bandwidth max-min", link->get_cname());
  return "";
}

/// The route check: every link crossed only by comms carrying the same number of transfers, and no
/// merged comm able to reach the TCP-gamma bound. Returns the reason it fails, or "".
std::string check_routes(const program::Plan& plan, const ReplayRanks& ranks, const FlowMerging& m,
                         const MergeNetwork& network) {
  std::unordered_map<std::uint64_t, Route> routes;  // by (slot, peer)
  std::unordered_map<const sg4::Link*, std::uint32_t> carried_on;
  for (std::uint32_t s = 0; s < m.carried.size(); ++s) {
    const program::RankProgram& p = plan.ranks[ranks.ranks[s]];
    for (std::uint32_t t = 0; t < m.carried[s].size(); ++t) {
      const std::uint32_t k = m.carried[s][t];
      if (k == 0) continue;
      const int peer = p.peer(t);
      auto [it, fresh] = routes.try_emplace((std::uint64_t{s} << 32) | static_cast<std::uint32_t>(peer));
      if (fresh) ranks.hosts[s]->route_to(ranks.receiver_host[peer], it->second.links, &it->second.latency_s);
      const Route& route = it->second;
      double min_bw_Bps = -1;
      for (const sg4::Link* link : route.links) {
        if (auto why = link_refusal(link, k, carried_on); !why.empty()) return why;
        if (min_bw_Bps < 0 || link->get_bandwidth() < min_bw_Bps) min_bw_Bps = link->get_bandwidth();
      }
      // The copies share the route's slowest link, so together they never exceed it: the merged
      // comm reaches its bound only if the TCP-gamma bound is below that link.
      const double latency_s = route.latency_s * network.latency_factor;
      if (k > 1 && latency_s > 0 && min_bw_Bps > network.tcp_gamma_B / (2 * latency_s))
        return fmt::format("the TCP-gamma rate bound could bind from rank {} to rank {}", ranks.ranks[s], peer);
    }
  }
  return "";
}

/// Why this replay must not merge, before looking at routes, or "".
std::string replay_refusal(const program::Plan& plan, const ReplayRanks& ranks, const MergeNetwork& network) {
  if (network.crosstraffic) return "crosstraffic is on";
  if (static_cast<int>(ranks.ranks.size()) != plan.rank_count()) return "symmetric replay";
  for (std::size_t s = 0; s < ranks.ranks.size(); ++s)
    if (ranks.ranks[s] != static_cast<int>(s) || ranks.slot_of_rank[s] != static_cast<int>(s)) return "symmetric replay";
  for (const auto& p : plan.ranks)
    for (program::OpIndex op = 0; op < p.size(); ++op)
      if (p.stream(op) == program::Stream::Background) return "a background stream";
  if (plan.interference.collective != 1.0) return "collectives slowed beside compute (links change bandwidth)";
  return "";
}

}  // namespace

FlowMerging plan_flow_merging(const program::Plan& plan, const program::MessageIndex& index,
                              const ReplayRanks& ranks, const MergeNetwork& network) {
  FlowMerging m;
  m.refusal = replay_refusal(plan, ranks, network);
  if (!m.refusal.empty()) return m;
  m.carried.resize(ranks.ranks.size());
  for (std::size_t s = 0; s < ranks.ranks.size(); ++s) {
    m.comms += group_sends(plan, index, ranks.ranks[s], m.carried[s]);
    const auto& p = plan.ranks[ranks.ranks[s]];
    for (program::OpIndex op = 0; op < p.size(); ++op) m.transfers += p.sends_end(op) - p.transfer_begin(op);
  }
  m.refusal = m.comms == m.transfers ? "no identical transfers" : check_routes(plan, ranks, m, network);
  if (!m.refusal.empty()) {
    m.carried.clear();
    m.comms = m.transfers;
  }
  return m;
}

}  // namespace clearfog::engine
