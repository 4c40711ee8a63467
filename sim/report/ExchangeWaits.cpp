#include "report/ExchangeWaits.hpp"

#include <algorithm>
#include <limits>

namespace clearfog::report {

const std::map<ExchangeWaits::End, program::OpIndex>& ExchangeWaits::ends_of(int rank) {
  auto [it, added] = ends_.try_emplace(rank);
  if (!added) return it->second;
  const auto& p = plan_.ranks[rank];
  for (program::OpIndex i = 0; i < p.size(); ++i) {
    if (p.kind(i) != program::OpKind::Exchange) continue;
    for (const auto& t : p.sends(i)) it->second.emplace(End{t.peer, t.tag, true}, i);
    for (const auto& t : p.recvs(i)) it->second.emplace(End{t.peer, t.tag, false}, i);
  }
  return it->second;
}

double ExchangeWaits::partner_posted_s(int rank, int peer, std::uint64_t tag, bool sends) {
  if (peer < 0 || peer >= plan_.rank_count()) return -1;
  // The other end: the peer's receive from `rank` of a send, its send to `rank` of a receive.
  const auto& ends = ends_of(peer);
  const auto it = ends.find(End{rank, tag, !sends});
  if (it == ends.end()) return -1;
  const auto& timing = result_.ops[peer][it->second];
  return timing.start_s < 0 ? -1 : timing.start_s + plan_.ranks[peer].seconds(it->second);
}

double ExchangeWaits::wait_s(int rank, program::OpIndex op) {
  const auto& p = plan_.ranks[rank];
  const auto& timing = result_.ops[rank][op];
  if (p.kind(op) != program::OpKind::Exchange || timing.start_s < 0) return 0;
  const double posted = timing.start_s + p.seconds(op);
  double first_moving = std::numeric_limits<double>::infinity();
  const auto consider = [&](const program::Transfer& t, bool sends) {
    const double other = partner_posted_s(rank, t.peer, t.tag, sends);
    if (other >= 0) first_moving = std::min(first_moving, std::max(posted, other));
  };
  for (const auto& t : p.sends(op)) consider(t, true);
  for (const auto& t : p.recvs(op)) consider(t, false);
  if (first_moving == std::numeric_limits<double>::infinity()) return 0;
  return std::clamp(first_moving - posted, 0.0, std::max(0.0, timing.end_s - posted));
}

}  // namespace clearfog::report
