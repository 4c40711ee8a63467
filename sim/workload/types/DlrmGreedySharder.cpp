// The sharding planner (docs/dlrm.md, "Choosing the sharding"): proposals, then a local search.
#include "workload/types/DlrmGreedySharder.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

#include "workload/types/DlrmPlacement.hpp"

namespace clearfog::workload {

namespace {

constexpr int kLocalSearchPasses = 4;

struct Scored {
  ShardPlan plan;
  ShardEstimate estimate;
};

/// A plan that fits beats one that does not; then the smaller estimate.
bool better(const ShardEstimate& a, const ShardEstimate& b) {
  return a.fits != b.fits ? a.fits : a.step_s < b.step_s;
}

/// `spec` reduced to the tables `order[0 .. count)` placed as `plan` says, then `table` as `choice`.
DlrmSpec partial(const DlrmSpec& spec, const ShardPlan& plan, const std::vector<std::size_t>& order, std::size_t count,
                 std::size_t table, const TableChoice& choice) {
  DlrmSpec s = spec;
  s.tables.clear();
  ShardPlan placed;
  for (std::size_t i = 0; i < count; ++i) {
    s.tables.push_back(spec.tables[order[i]]);
    placed.push_back(plan[order[i]]);
  }
  s.tables.push_back(spec.tables[table]);
  placed.push_back(choice);
  return with_plan(s, placed);
}

/// The plan with its automatically placed table-wise tables written down, so that changing one
/// table later does not move the others.
ShardPlan written_down(const DlrmSpec& spec, ShardPlan plan, const ShardCostInputs& in) {
  const auto placed = place_tables(with_plan(spec, plan), in.group, in.node_devices);
  for (std::size_t i = 0; i < plan.size(); ++i)
    if (plan[i].sharding == TableSharding::TableWise) plan[i].rank = placed[i].shards.front().rank;
  return plan;
}

/// Tables by decreasing estimate alone, table-wise on one device: the costliest are placed first.
std::vector<std::size_t> costliest_first(const DlrmSpec& spec, const ShardCostInputs& in) {
  const std::size_t n = spec.tables.size();
  const TableChoice first_device{TableSharding::TableWise, 0, 0, kAutoPlacement};
  std::vector<double> alone(n);
  for (std::size_t i = 0; i < n; ++i) alone[i] = estimate_sharding(partial(spec, {}, {}, 0, i, first_device), in).step_s;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return alone[a] > alone[b]; });
  return order;
}

/// Each table in `order` takes the choice that is best for the tables placed so far.
ShardPlan table_by_table(const DlrmSpec& spec, const std::vector<std::size_t>& order, const ShardCostInputs& in) {
  ShardPlan plan(spec.tables.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t table = order[k];
    bool have = false;
    ShardEstimate best;
    for (const auto& choice : greedy_choices(spec.tables[table], in)) {
      const auto e = estimate_sharding(partial(spec, plan, order, k, table, choice), in);
      if (have && !better(e, best)) continue;  // ties keep the earlier choice
      plan[table] = choice;
      best = e;
      have = true;
    }
  }
  return plan;
}

/// Every table sharded as `choice`, where the group can hold it (else nullopt).
std::optional<ShardPlan> uniform(const DlrmSpec& spec, const TableChoice& choice, const ShardCostInputs& in) {
  for (const auto& t : with_plan(spec, ShardPlan(spec.tables.size(), choice)).tables)
    if (!placement_problem(t, in.group, in.node_devices).empty()) return std::nullopt;
  return ShardPlan(spec.tables.size(), choice);
}

/// One table at a time, the choice that lowers the whole plan's estimate most, until no change
/// helps (or kLocalSearchPasses passes).
void improve(const DlrmSpec& spec, const std::vector<std::size_t>& order, const ShardCostInputs& in, Scored& s) {
  for (int pass = 0; pass < kLocalSearchPasses; ++pass) {
    bool changed = false;
    for (const std::size_t table : order)
      for (const auto& choice : greedy_choices(spec.tables[table], in)) {
        if (choice == s.plan[table]) continue;
        ShardPlan trial = s.plan;
        trial[table] = choice;
        const auto e = estimate_sharding(with_plan(spec, trial), in);
        if (!better(e, s.estimate)) continue;
        s = {std::move(trial), e};
        changed = true;
      }
    if (!changed) return;
  }
}

}  // namespace

std::vector<TableChoice> greedy_choices(const EmbeddingTable& t, const ShardCostInputs& in) {
  std::vector<TableChoice> c;
  for (int r = 0; r < in.group; ++r) c.push_back({TableSharding::TableWise, r, 0, kAutoPlacement});
  if (in.group > 1) {
    if (t.dim % in.group == 0)
      c.push_back({TableSharding::ColumnWise, 0, in.group, kAutoPlacement});
    else
      c.push_back({TableSharding::ColumnWise, kAutoPlacement, 0, kAutoPlacement});
    c.push_back({TableSharding::RowWise, kAutoPlacement, 0, kAutoPlacement});
  }
  const int node = std::min(in.group, std::max(1, in.node_devices));
  if (in.group > node)
    for (int h = 0; h < in.group / node; ++h) c.push_back({TableSharding::TableRowWise, kAutoPlacement, 0, h});
  c.push_back({TableSharding::DataParallel, kAutoPlacement, 0, kAutoPlacement});
  // Choices the group cannot hold (more row shards than rows) are not choices.
  std::erase_if(c, [&](const TableChoice& choice) {
    EmbeddingTable placed = t;
    placed.sharding = choice.sharding;
    placed.rank = choice.rank;
    placed.shards = choice.shards;
    placed.host = choice.host;
    return !placement_problem(placed, in.group, in.node_devices).empty();
  });
  return c;
}

ShardPlan greedy_plan(const DlrmSpec& spec, const ShardCostInputs& in) {
  const auto order = costliest_first(spec, in);
  std::vector<ShardPlan> proposals = {table_by_table(spec, order, in)};
  const int autom = kAutoPlacement;
  for (const TableChoice& c : {TableChoice{TableSharding::TableWise, autom, 0, autom},
                               TableChoice{TableSharding::ColumnWise, autom, 0, autom},
                               TableChoice{TableSharding::RowWise, autom, 0, autom},
                               TableChoice{TableSharding::DataParallel, autom, 0, autom}})
    if (auto p = uniform(spec, c, in)) proposals.push_back(written_down(spec, std::move(*p), in));
  std::optional<Scored> best;
  for (auto& p : proposals) {
    auto e = estimate_sharding(with_plan(spec, p), in);
    if (!best || better(e, best->estimate)) best = Scored{std::move(p), std::move(e)};
  }
  improve(spec, order, in, *best);
  return best->plan;
}

}  // namespace clearfog::workload
