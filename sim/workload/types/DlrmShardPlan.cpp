// Sharding plans and the exhaustive plan space (docs/dlrm.md, "Choosing the sharding").
#include "workload/types/DlrmShardPlan.hpp"

#include <fmt/format.h>

#include <limits>

#include "core/Errors.hpp"

namespace clearfog::workload {

namespace {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) { return a > kSaturated - b ? kSaturated : a + b; }
std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return a != 0 && b > kSaturated / a ? kSaturated : a * b;
}

/// The choices of a table other than table-wise: row-wise and column-wise over the whole group
/// (row-wise where the table has a row per device, column-wise where the group divides the
/// dimension), data parallel.
std::vector<TableChoice> spread_choices(const EmbeddingTable& t, int group) {
  std::vector<TableChoice> c;
  if (group > 1) {
    if (t.rows >= group) c.push_back({TableSharding::RowWise, kAutoPlacement, group, kAutoPlacement});
    if (t.dim % group == 0) c.push_back({TableSharding::ColumnWise, 0, group, kAutoPlacement});
  }
  c.push_back({TableSharding::DataParallel, kAutoPlacement, 0, kAutoPlacement});
  return c;
}

/// Devices a table-wise table may take as a new (not yet used) device, in order.
std::vector<int> renamable_devices(const ShardSpace& s) {
  std::vector<int> d;
  for (int r = 0; r < s.group; ++r)
    if (r != s.distinguished) d.push_back(r);
  return d;
}

/// Walks the space table by table; `used` table-wise devices of the renamable ones so far.
class PlanWalk {
public:
  PlanWalk(const DlrmSpec& spec, const ShardSpace& space)
      : spec_(spec), space_(space), renamable_(renamable_devices(space)), memo_(spec.tables.size() + 1) {}

  std::uint64_t count(std::size_t table, std::size_t used) {
    if (table == spec_.tables.size()) return 1;
    auto& row = memo_[table];
    if (row.size() <= used) row.resize(used + 1, 0);
    if (row[used] != 0) return row[used];
    const auto spread = spread_choices(spec_.tables[table], space_.group).size();
    std::uint64_t n = 0;
    if (!space_.interchangeable) {
      n = saturating_mul(static_cast<std::uint64_t>(space_.group) + spread, count(table + 1, used));
    } else {
      const std::uint64_t same = used + spread + (space_.distinguished != kAutoPlacement ? 1 : 0);
      n = saturating_mul(same, count(table + 1, used));
      if (used < renamable_.size()) n = saturating_add(n, count(table + 1, used + 1));
    }
    return row[used] = n;
  }

  void build(std::size_t table, std::size_t used, ShardPlan& plan, std::vector<ShardPlan>& out) {
    if (table == spec_.tables.size()) {
      out.push_back(plan);
      return;
    }
    const auto take = [&](TableChoice c, std::size_t next_used) {
      plan.push_back(c);
      build(table + 1, next_used, plan, out);
      plan.pop_back();
    };
    const auto table_wise = [](int device) { return TableChoice{TableSharding::TableWise, device, 0, kAutoPlacement}; };
    if (!space_.interchangeable) {
      for (int r = 0; r < space_.group; ++r) take(table_wise(r), used);
    } else {
      for (std::size_t i = 0; i < used; ++i) take(table_wise(renamable_[i]), used);
      if (used < renamable_.size()) take(table_wise(renamable_[used]), used + 1);
      if (space_.distinguished != kAutoPlacement) take(table_wise(space_.distinguished), used);
    }
    for (const auto& c : spread_choices(spec_.tables[table], space_.group)) take(c, used);
  }

private:
  const DlrmSpec& spec_;
  ShardSpace space_;
  std::vector<int> renamable_;
  std::vector<std::vector<std::uint64_t>> memo_;  // plans below (table, used); 0: not counted yet
};

}  // namespace

DlrmSpec with_plan(const DlrmSpec& spec, const ShardPlan& plan) {
  if (plan.size() != spec.tables.size())
    throw Error(fmt::format("a sharding plan for {} tables applied to a model with {}", plan.size(), spec.tables.size()));
  DlrmSpec out = spec;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    auto& t = out.tables[i];
    t.sharding = plan[i].sharding;
    t.rank = plan[i].rank;
    t.shards = plan[i].shards;
    t.host = plan[i].host;
  }
  return out;
}

ShardPlan written_plan(const DlrmSpec& spec) {
  ShardPlan plan;
  for (const auto& t : spec.tables) plan.push_back({t.sharding, t.rank, t.shards, t.host});
  return plan;
}

std::string plan_text(const DlrmSpec& spec, const ShardPlan& plan) {
  std::string text;
  for (std::size_t i = 0; i < plan.size() && i < spec.tables.size(); ++i) {
    const auto& c = plan[i];
    if (!text.empty()) text += ' ';
    text += spec.tables[i].name;
    const auto at = [](int where) { return where == kAutoPlacement ? std::string() : fmt::format("@{}", where); };
    switch (c.sharding) {
      case TableSharding::TableWise: text += c.rank == kAutoPlacement ? ":tw" : at(c.rank); break;
      case TableSharding::RowWise: text += ":rw" + at(c.rank); break;
      case TableSharding::ColumnWise: text += ":cw" + at(c.rank); break;
      case TableSharding::TableRowWise: text += ":trw" + at(c.host); break;
      case TableSharding::DataParallel: text += ":dp"; break;
    }
  }
  return text;
}

std::uint64_t exhaustive_plan_count(const DlrmSpec& spec, const ShardSpace& space) {
  return PlanWalk(spec, space).count(0, 0);
}

std::vector<ShardPlan> exhaustive_plans(const DlrmSpec& spec, const ShardSpace& space, std::uint64_t max_plans) {
  PlanWalk walk(spec, space);
  const std::uint64_t n = walk.count(0, 0);
  if (n > max_plans)
    throw Error(fmt::format("the exhaustive search would simulate {} sharding plans of {} tables on {} devices, more "
                            "than the limit of {}: search fewer tables, or raise the limit",
                            n == kSaturated ? std::string("more than 1.8e19") : std::to_string(n), spec.tables.size(),
                            space.group, max_plans));
  std::vector<ShardPlan> out;
  out.reserve(static_cast<std::size_t>(n));
  ShardPlan plan;
  walk.build(0, 0, plan, out);
  return out;
}

}  // namespace clearfog::workload
