#include "collectives/AppendSchedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <tuple>

#include "core/Errors.hpp"

namespace clearfog::collectives {
namespace {

using program::OpIndex;

static_assert(sizeof(LoweredSchedule::Transfer) == 16);

/// One end of a message as a participant sees it.
struct Posting {
  int round;
  bool is_send;
  LoweredSchedule::Transfer transfer;
};

/// Appends one exchange per run of postings with the same round (sends first, then receives, each
/// in posting order) to participant p of `out`.
void add_exchanges(LoweredSchedule& out, const std::vector<Posting>& mine) {
  for (std::size_t i = 0; i < mine.size();) {
    const int round = mine[i].round;
    std::size_t end = i;
    while (end < mine.size() && mine[end].round == round) ++end;
    LoweredSchedule::Exchange e{round, static_cast<std::uint32_t>(out.transfers.size()), 0, 0};
    for (const bool sends : {true, false})
      for (std::size_t j = i; j < end; ++j)
        if (mine[j].is_send == sends) {
          out.transfers.push_back(mine[j].transfer);
          ++(sends ? e.sends : e.receives);
        }
    out.exchanges.push_back(e);
    i = end;
  }
}

void lower_steps(const Schedule& schedule, LoweredSchedule& out) {
  std::vector<std::vector<Posting>> postings(schedule.participants());
  const auto& messages = schedule.messages();
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    const auto tag = static_cast<std::uint32_t>(i);
    postings[m.from].push_back(Posting{m.round, true, {m.bytes, m.to, tag}});
    postings[m.to].push_back(Posting{m.round, false, {m.bytes, m.from, tag}});
  }
  out.tags = messages.size();
  for (int p = 0; p < schedule.participants(); ++p) {
    // Stable: within a round, messages keep the order the algorithm added them in.
    std::stable_sort(postings[p].begin(), postings[p].end(),
                     [](const Posting& a, const Posting& b) { return a.round < b.round; });
    out.first_exchange.push_back(static_cast<std::uint32_t>(out.exchanges.size()));
    add_exchanges(out, postings[p]);
  }
}

void lower_fluid(const Schedule& schedule, LoweredSchedule& out) {
  // Everything one participant sends another on one lane, in one transfer: sorted by (from, to,
  // lane), bytes summed in message order, one tag per pair and lane in that order.
  const auto& messages = schedule.messages();
  std::vector<std::uint32_t> order(messages.size());
  std::iota(order.begin(), order.end(), 0u);
  const auto key = [&](std::uint32_t i) { return std::tie(messages[i].from, messages[i].to, messages[i].lane); };
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  struct Pair {
    int from, to;
    double bytes;
  };
  std::vector<Pair> pairs;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Message& m = messages[order[i]];
    if (i > 0 && key(order[i - 1]) == key(order[i]))
      pairs.back().bytes += m.bytes;
    else
      pairs.push_back({m.from, m.to, m.bytes});
  }
  out.tags = pairs.size();
  std::vector<std::vector<Posting>> postings(schedule.participants());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto tag = static_cast<std::uint32_t>(k);
    postings[pairs[k].from].push_back(Posting{0, true, {pairs[k].bytes, pairs[k].to, tag}});
    postings[pairs[k].to].push_back(Posting{0, false, {pairs[k].bytes, pairs[k].from, tag}});
  }
  for (int p = 0; p < schedule.participants(); ++p) {
    out.first_exchange.push_back(static_cast<std::uint32_t>(out.exchanges.size()));
    add_exchanges(out, postings[p]);
  }
}

}  // namespace

LoweredSchedule lower_schedule(const Schedule& schedule, config::Fidelity fidelity) {
  LoweredSchedule out;
  out.fidelity = fidelity;
  out.participants = schedule.participants();
  out.rounds = schedule.rounds();
  if (fidelity == config::Fidelity::Step)
    lower_steps(schedule, out);
  else
    lower_fluid(schedule, out);
  out.first_exchange.push_back(static_cast<std::uint32_t>(out.exchanges.size()));
  return out;
}

std::vector<OpIndex> append_lowered(program::Plan& plan, const LoweredSchedule& s, const Lowering& l,
                                    TagAllocator& tags) {
  if (static_cast<int>(l.endpoints.size()) != s.participants || l.members > s.participants)
    throw Error(fmt::format("append_lowered: {} endpoints and {} members for {} participants", l.endpoints.size(),
                            l.members, s.participants));
  const std::uint64_t first_tag = tags.allocate(s.tags);
  const bool step = s.fidelity == config::Fidelity::Step;
  // Names are interned once per collective (all ranks share the plan's name table).
  // The plain name: every fluid exchange, and any zero-time marker.
  program::NameId plain_id = program::NameId(-1);
  const auto plain_name = [&] {
    if (plain_id == program::NameId(-1)) plain_id = plan.ranks[l.endpoints.front()].intern(l.name);
    return plain_id;
  };
  std::vector<program::NameId> round_names;
  const auto name_of_round = [&](int round) {
    if (round_names.size() <= static_cast<std::size_t>(round)) round_names.resize(round + 1, program::NameId(-1));
    auto& id = round_names[round];
    if (id == program::NameId(-1)) id = plan.ranks[l.endpoints.front()].intern(fmt::format("{}.s{}", l.name, round));
    return id;
  };
  // The latency the step plan pays along its critical path of rounds steps; the last step's
  // latency is paid by the fluid transfers themselves.
  const double fluid_overhead_s = s.rounds * l.step_overhead_s + std::max(0, s.rounds - 1) * l.step_latency_s;
  std::vector<program::Transfer> transfers;
  std::vector<OpIndex> last(l.members);
  for (int p = 0; p < s.participants; ++p) {
    auto& program = plan.ranks[l.endpoints[p]];
    const bool member = p < l.members;
    std::span<const OpIndex> after;
    if (member && l.deps != nullptr && !l.deps->empty()) after = (*l.deps)[p];
    const std::uint32_t begin = s.first_exchange[p];
    const std::uint32_t end = s.first_exchange[p + 1];
    for (std::uint32_t e = begin; e < end; ++e) {
      const auto& x = s.exchanges[e];
      transfers.clear();
      for (std::uint32_t t = x.first_transfer; t < x.first_transfer + x.sends + x.receives; ++t) {
        const auto& lt = s.transfers[t];
        transfers.push_back(program::Transfer{l.endpoints[lt.position], lt.bytes, first_tag + lt.tag_offset});
      }
      const std::span<const program::Transfer> all(transfers);
      const double launch_s = e == begin && member ? l.launch_overhead_s : 0.0;
      const double overhead_s = (step ? l.step_overhead_s : fluid_overhead_s) + launch_s;
      const OpIndex op = program.add_exchange(l.stream, l.category, step ? name_of_round(x.round) : plain_name(),
                                              all.first(x.sends), all.subspan(x.sends), after, overhead_s);
      after = {};  // later steps follow the first in program order on the same stream
      if (member) last[p] = op;
    }
    // A participant with nothing to exchange: a zero-time marker (fluid plans give every
    // participant one op; step plans only the members).
    if (begin == end && (member || !step)) {
      const OpIndex op = program.add_compute(l.stream, l.category, plain_name(), 0.0, after);
      if (member) last[p] = op;
    }
  }
  return last;
}

}  // namespace clearfog::collectives
