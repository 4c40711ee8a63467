#include "collectives/RingAllReduce.hpp"

#include <fmt/format.h>

#include "core/Errors.hpp"

namespace clearfog::collectives {

std::vector<RingStep> ring_all_reduce_steps(const std::vector<int>& ring, int position, double bytes) {
  const int p = static_cast<int>(ring.size());
  if (position < 0 || position >= p) throw Error(fmt::format("ring position {} outside 0..{}", position, p - 1));
  std::vector<RingStep> steps;
  if (p < 2) return steps;
  const double chunk = bytes / p;
  const int next = ring[(position + 1) % p];
  const int prev = ring[(position + p - 1) % p];
  steps.reserve(2 * (p - 1));
  for (int s = 0; s < 2 * (p - 1); ++s) steps.push_back(RingStep{next, prev, chunk, s < p - 1});
  return steps;
}

std::vector<program::OpIndex> append_ring_all_reduce(program::Plan& plan, const std::vector<int>& ring,
                                                     double bytes, program::Stream stream,
                                                     program::Category category, const std::string& name,
                                                     const std::vector<std::vector<program::OpIndex>>& deps,
                                                     TagAllocator& tags) {
  const int p = static_cast<int>(ring.size());
  std::vector<program::OpIndex> last(p);
  if (p < 2) {
    // Nothing to exchange: a zero-time marker keeps the caller's dependency bookkeeping uniform.
    for (int i = 0; i < p; ++i)
      last[i] = plan.ranks[ring[i]].add_compute(stream, category, name, 0.0, deps.at(i));
    return last;
  }
  const int steps = 2 * (p - 1);
  // Tag of step s sent by ring member i: unique within this collective.
  const std::uint64_t base = tags.allocate(static_cast<std::uint64_t>(steps) * static_cast<std::uint64_t>(p));
  auto tag = [&](int member, int step) { return base + static_cast<std::uint64_t>(step) * p + member; };
  for (int i = 0; i < p; ++i) {
    auto& program = plan.ranks[ring[i]];
    const auto plan_steps = ring_all_reduce_steps(ring, i, bytes);
    std::vector<program::OpIndex> after = deps.at(i);
    for (int s = 0; s < steps; ++s) {
      const auto& st = plan_steps[s];
      const int prev_member = (i + p - 1) % p;
      auto op = program.add_exchange(stream, category,
                                     fmt::format("{}.{}{}", name, st.reduce ? "rs" : "ag", st.reduce ? s : s - (p - 1)),
                                     {program::Transfer{st.send_to, st.bytes, tag(i, s)}},
                                     {program::Transfer{st.recv_from, st.bytes, tag(prev_member, s)}}, after);
      after = {};  // later steps follow the first in program order on the same stream
      last[i] = op;
    }
  }
  return last;
}

}  // namespace clearfog::collectives
