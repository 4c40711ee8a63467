#include "program/PlanSymmetry.hpp"

#include <fmt/format.h>

#include <numeric>

namespace clearfog::program {
namespace {

/// Records equal in everything that matters for timing (not the name).
bool same_timing(const RankProgram::Record& a, const RankProgram::Record& b) {
  return a.kind == b.kind && a.stream == b.stream && a.category == b.category && a.seconds == b.seconds &&
         a.first_dep == b.first_dep && a.first_transfer == b.first_transfer && a.send_count == b.send_count;
}

std::string ops_violation(const RankProgram& p, const RankProgram& q, int x, int y) {
  if (p.size() != q.size() || p.transfers().size() != q.transfers().size())
    return fmt::format("rank {} has {} ops and {} transfers, rank {} {} and {}", x, p.size(), p.transfers().size(), y,
                       q.size(), q.transfers().size());
  if (p.shares_ops_with(q)) return {};
  for (OpIndex i = 0; i < p.size(); ++i) {
    if (!same_timing(p.record(i), q.record(i)) || !(p.deps(i) == q.deps(i)))
      return fmt::format("op {} differs between rank {} ({}) and rank {} ({})", i, x, p.name(i), y, q.name(i));
  }
  return {};
}

}  // namespace

std::string plan_symmetry_violation(const Plan& plan, const MessageIndex& index, const std::vector<int>& image) {
  const int n = plan.rank_count();
  if (static_cast<int>(image.size()) != n) return fmt::format("it names {} ranks, the plan has {}", image.size(), n);
  std::vector<char> hit(static_cast<std::size_t>(n), 0);
  for (int x = 0; x < n; ++x) {
    const int y = image[x];
    if (y < 0 || y >= n || hit[y]) return fmt::format("it is not a permutation of the ranks (rank {} -> {})", x, y);
    hit[y] = 1;
  }
  for (int x = 0; x < n; ++x) {
    const int y = image[x];
    const RankProgram& p = plan.ranks[x];
    const RankProgram& q = plan.ranks[y];
    if (auto why = ops_violation(p, q, x, y); !why.empty()) return why;
    const auto& tp = p.transfers();
    const auto& tq = q.transfers();
    for (std::uint32_t k = 0; k < tp.size(); ++k) {
      const OpIndex op = p.op_of_transfer(k);
      if (tq[k].peer != image[tp[k].peer])
        return fmt::format("op {} of rank {} ({}) exchanges with rank {}, the same op of rank {} with rank {}, not {}",
                           op, x, p.name(op), tp[k].peer, y, tq[k].peer, image[tp[k].peer]);
      if (tq[k].bytes != tp[k].bytes)
        return fmt::format("op {} of rank {} ({}) moves {} B to or from rank {}, the same op of rank {} {} B", op, x,
                           p.name(op), tp[k].bytes, tp[k].peer, y, tq[k].bytes);
      if (index.partner(y, k) != index.partner(x, k))
        return fmt::format("op {} of rank {} ({}) and the same op of rank {} are matched by different ops of their "
                           "peers",
                           op, x, p.name(op), y);
    }
  }
  return {};
}

int permutation_order(const Plan& plan, const std::vector<int>& image, int limit) {
  const int n = plan.rank_count();
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  long order = 1;
  for (int x = 0; x < n; ++x) {
    if (seen[x] || plan.ranks[x].empty()) continue;
    long length = 0;
    for (int y = x; !seen[y]; y = image[y]) {
      seen[y] = 1;
      ++length;
    }
    order = std::lcm(order, length);
    if (order > limit) return 0;
  }
  return static_cast<int>(order);
}

}  // namespace clearfog::program
