#include "program/PlanMerge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

#include "core/Errors.hpp"

namespace clearfog::program {
namespace {

constexpr OpIndex kNoOp = static_cast<OpIndex>(-1);

/// One past the largest tag any transfer of `plan` uses: the shift between iterations.
std::uint64_t tag_span(const Plan& plan) {
  std::uint64_t span = 0;
  for (const auto& program : plan.ranks)
    for (std::uint32_t t = 0; t < program.transfer_count(); ++t) span = std::max(span, program.tag(t) + 1);
  return span;
}

/// The first and last op of each stream of `program`.
struct StreamEnds {
  std::array<OpIndex, kStreamCount> first{};
  std::array<OpIndex, kStreamCount> last{};
};
StreamEnds stream_ends(const RankProgram& program) {
  StreamEnds e;
  e.first.fill(kNoOp);
  e.last.fill(kNoOp);
  for (OpIndex i = 0; i < program.size(); ++i) {
    const auto s = static_cast<std::size_t>(program.stream(i));
    if (e.first[s] == kNoOp) e.first[s] = i;
    e.last[s] = i;
  }
  return e;
}

/// Copies `from` (a rank of `part`) into `to`, iteration after iteration, after the start op.
void copy_rank(const PlanPart& part, const RankProgram& from, RankProgram& to, std::uint64_t span) {
  to.add_compute(Stream::Compute, Category::Forward, "job.start", part.start_s);
  const StreamEnds ends = stream_ends(from);
  const OpIndex n = from.size();
  std::vector<OpIndex> barrier = {0};  // what the first op of each stream waits for
  std::vector<OpIndex> deps;
  std::vector<Transfer> sends, recvs;
  const auto remap = [&](const TransferList& list, std::vector<Transfer>& out, int k) {
    out.clear();
    for (Transfer t : list) {
      if (t.peer < 0 || static_cast<std::size_t>(t.peer) >= part.ranks.size())
        throw Error(fmt::format("merge_plans: a transfer addresses rank {}, outside the part's {} ranks", t.peer,
                                part.ranks.size()));
      t.peer = part.ranks[static_cast<std::size_t>(t.peer)];
      t.tag += static_cast<std::uint64_t>(k) * span;
      out.push_back(t);
    }
  };
  for (int k = 0; k < part.iterations; ++k) {
    for (OpIndex i = 0; i < n; ++i) {
      deps.clear();
      for (const OpIndex d : from.deps(i)) deps.push_back(merged_op_index(n, k, d));
      if (ends.first[static_cast<std::size_t>(from.stream(i))] == i) deps.insert(deps.end(), barrier.begin(), barrier.end());
      const NameId name = to.intern(from.name(i));
      if (from.kind(i) == OpKind::Compute) {
        to.add_compute(from.stream(i), from.category(i), name, from.seconds(i), deps);
      } else {
        remap(from.sends(i), sends, k);
        remap(from.recvs(i), recvs, k);
        to.add_exchange(from.stream(i), from.category(i), name, sends, recvs, deps, from.seconds(i));
      }
    }
    barrier.clear();
    for (const OpIndex last : ends.last)
      if (last != kNoOp) barrier.push_back(merged_op_index(n, k, last));
  }
}

void check_part(const PlanPart& part, std::vector<char>& used, std::size_t index) {
  if (part.plan == nullptr || part.ranks.size() != part.plan->ranks.size())
    throw Error(fmt::format("merge_plans: part {} maps {} ranks for a plan of {}", index, part.ranks.size(),
                            part.plan ? part.plan->ranks.size() : 0));
  if (part.iterations < 1 || !(part.start_s >= 0))
    throw Error(fmt::format("merge_plans: part {} has {} iterations and start {} s; need >= 1 and >= 0", index,
                            part.iterations, part.start_s));
  for (const int r : part.ranks) {
    if (r < 0 || static_cast<std::size_t>(r) >= used.size() || used[static_cast<std::size_t>(r)])
      throw Error(fmt::format("merge_plans: part {} maps a rank to {}, outside the {} ranks or already used", index,
                              r, used.size()));
    used[static_cast<std::size_t>(r)] = 1;
  }
}

}  // namespace

Plan merge_plans(std::span<const PlanPart> parts, int rank_count) {
  Plan merged;
  merged.ranks.resize(static_cast<std::size_t>(std::max(rank_count, 0)));
  std::vector<char> used(merged.ranks.size(), 0);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const PlanPart& part = parts[p];
    check_part(part, used, p);
    const std::uint64_t span = tag_span(*part.plan);
    for (std::size_t r = 0; r < part.ranks.size(); ++r)
      copy_rank(part, part.plan->ranks[r], merged.ranks[static_cast<std::size_t>(part.ranks[r])], span);
    // One slowdown for the whole machine: the platform's (every part was planned on it).
    merged.interference.compute = std::max(merged.interference.compute, part.plan->interference.compute);
    merged.interference.collective = std::max(merged.interference.collective, part.plan->interference.collective);
  }
  return merged;
}

}  // namespace clearfog::program
