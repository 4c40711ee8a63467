#include "program/PlanSymmetry.hpp"

#include <fmt/format.h>

#include <numeric>

namespace clearfog::program {
namespace {

/// Records equal in everything that matters for timing (not the name).
bool same_timing(const RankProgram::Record& a, const RankProgram::Record& b) {
  return a.kind == b.kind && a.stream_category == b.stream_category && a.seconds == b.seconds &&
         a.first_dep == b.first_dep && a.first_transfer == b.first_transfer && a.send_count == b.send_count;
}

std::string ops_violation(const RankProgram& p, const RankProgram& q, int x, int y) {
  if (p.size() != q.size() || p.transfer_count() != q.transfer_count())
    return fmt::format("rank {} has {} ops and {} transfers, rank {} {} and {}", x, p.size(), p.transfer_count(), y,
                       q.size(), q.transfer_count());
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
    for (std::uint32_t k = 0; k < p.transfer_count(); ++k) {
      const auto op = [&] { return p.op_of_transfer(k); };  // only to say where, on failure
      if (q.peer(k) != image[p.peer(k)])
        return fmt::format("op {} of rank {} ({}) exchanges with rank {}, the same op of rank {} with rank {}, not {}",
                           op(), x, p.name(op()), p.peer(k), y, q.peer(k), image[p.peer(k)]);
      if (q.bytes_id(k) != p.bytes_id(k))
        return fmt::format("op {} of rank {} ({}) moves {} B to or from rank {}, the same op of rank {} {} B", op(),
                           x, p.name(op()), p.bytes(k), p.peer(k), y, q.bytes(k));
      if (index.partner(y, k) != index.partner(x, k))
        return fmt::format("op {} of rank {} ({}) and the same op of rank {} are matched by different ops of their "
                           "peers",
                           op(), x, p.name(op()), y);
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
