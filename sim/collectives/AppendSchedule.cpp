#include "collectives/AppendSchedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/Errors.hpp"

namespace clearfog::collectives {
namespace {

using program::OpIndex;
using program::Transfer;

/// One end of a message as a participant sees it.
struct Posting {
  int round;
  bool is_send;
  Transfer transfer;
};

std::vector<OpIndex> deps_of(const Lowering& l, int participant) {
  if (participant < l.members && !l.deps.empty()) return l.deps[participant];
  return {};
}

std::vector<std::vector<Posting>> postings_by_participant(const Schedule& schedule, const Lowering& l,
                                                          std::uint64_t first_tag) {
  std::vector<std::vector<Posting>> postings(schedule.participants());
  const auto& messages = schedule.messages();
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    const std::uint64_t tag = first_tag + i;
    postings[m.from].push_back(Posting{m.round, true, Transfer{l.endpoints[m.to], m.bytes, tag}});
    postings[m.to].push_back(Posting{m.round, false, Transfer{l.endpoints[m.from], m.bytes, tag}});
  }
  // Stable: within a round, messages keep the order the algorithm added them in.
  for (auto& p : postings)
    std::stable_sort(p.begin(), p.end(), [](const Posting& a, const Posting& b) { return a.round < b.round; });
  return postings;
}

std::vector<OpIndex> append_steps(program::Plan& plan, const Schedule& schedule, const Lowering& l,
                                  TagAllocator& tags) {
  const auto postings = postings_by_participant(schedule, l, tags.allocate(schedule.messages().size()));
  std::vector<OpIndex> last(l.members);
  for (int p = 0; p < schedule.participants(); ++p) {
    auto& program = plan.ranks[l.endpoints[p]];
    std::vector<OpIndex> after = deps_of(l, p);
    bool any = false;
    const auto& mine = postings[p];
    for (std::size_t i = 0; i < mine.size();) {
      const int round = mine[i].round;
      std::vector<Transfer> sends, recvs;
      for (; i < mine.size() && mine[i].round == round; ++i)
        (mine[i].is_send ? sends : recvs).push_back(mine[i].transfer);
      const double launch_s = !any && p < l.members ? l.launch_overhead_s : 0.0;
      const OpIndex op = program.add_exchange(l.stream, l.category, fmt::format("{}.s{}", l.name, round),
                                              std::move(sends), std::move(recvs), std::move(after),
                                              l.step_overhead_s + launch_s);
      after = {};  // later steps follow the first in program order on the same stream
      any = true;
      if (p < l.members) last[p] = op;
    }
    if (!any && p < l.members)
      last[p] = program.add_compute(l.stream, l.category, l.name, 0.0, std::move(after));
  }
  return last;
}

std::vector<OpIndex> append_fluid(program::Plan& plan, const Schedule& schedule, const Lowering& l,
                                  TagAllocator& tags) {
  // Everything one participant sends another on one lane, in one transfer.
  std::map<std::tuple<int, int, int>, double> pair_bytes;
  for (const Message& m : schedule.messages()) pair_bytes[{m.from, m.to, m.lane}] += m.bytes;
  const std::uint64_t first_tag = tags.allocate(pair_bytes.size());
  std::vector<std::vector<Transfer>> sends(schedule.participants()), recvs(schedule.participants());
  std::uint64_t k = 0;
  for (const auto& [pair, bytes] : pair_bytes) {
    const std::uint64_t tag = first_tag + k++;
    const int from = std::get<0>(pair);
    const int to = std::get<1>(pair);
    sends[from].push_back(Transfer{l.endpoints[to], bytes, tag});
    recvs[to].push_back(Transfer{l.endpoints[from], bytes, tag});
  }
  // The latency the step plan pays along its critical path of rounds() steps; the last step's
  // latency is paid by the fluid transfers themselves.
  const int steps = schedule.rounds();
  const double overhead_s = steps * l.step_overhead_s + std::max(0, steps - 1) * l.step_latency_s;
  std::vector<OpIndex> last(l.members);
  for (int p = 0; p < schedule.participants(); ++p) {
    auto& program = plan.ranks[l.endpoints[p]];
    OpIndex op;
    if (sends[p].empty() && recvs[p].empty())
      op = program.add_compute(l.stream, l.category, l.name, 0.0, deps_of(l, p));
    else
      op = program.add_exchange(l.stream, l.category, l.name, std::move(sends[p]), std::move(recvs[p]),
                                deps_of(l, p), overhead_s + (p < l.members ? l.launch_overhead_s : 0.0));
    if (p < l.members) last[p] = op;
  }
  return last;
}

}  // namespace

std::vector<OpIndex> append_schedule(program::Plan& plan, const Schedule& schedule, const Lowering& l,
                                     TagAllocator& tags) {
  if (static_cast<int>(l.endpoints.size()) != schedule.participants() || l.members > schedule.participants())
    throw Error(fmt::format("append_schedule: {} endpoints and {} members for {} participants", l.endpoints.size(),
                            l.members, schedule.participants()));
  return l.fidelity == config::Fidelity::Step ? append_steps(plan, schedule, l, tags)
                                              : append_fluid(plan, schedule, l, tags);
}

}  // namespace clearfog::collectives
