// The sharding plan space against its combinatorics: with interchangeable devices, the table-wise
// tables of a plan form a set partition (blocks = devices, at most G of them), so the space holds
// sum_k C(T,k) * sum_{j<=G} S(k,j) * m^(T-k) plans (S: Stirling numbers of the second kind, m the
// other choices per table); a distinguished device is one block the partition may or may not use;
// devices that are not interchangeable give (G + m)^T.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "workload/types/DlrmShardPlan.hpp"

using namespace clearfog;
using workload::DlrmSpec;
using workload::ShardSpace;
using workload::TableSharding;

namespace {

DlrmSpec tables(int count, double rows = 1e6, int dim = 64) {
  DlrmSpec s;
  for (int i = 0; i < count; ++i) {
    workload::EmbeddingTable t;
    t.name = "t" + std::to_string(i);
    t.rows = rows;
    t.dim = dim;
    s.tables.push_back(t);
  }
  return s;
}

double binomial(int n, int k) {
  double c = 1;
  for (int i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return c;
}

/// S(n, k) by the recurrence S(n, k) = k S(n-1, k) + S(n-1, k-1).
double stirling2(int n, int k) {
  if (n == 0 && k == 0) return 1;
  if (n == 0 || k == 0) return 0;
  return k * stirling2(n - 1, k) + stirling2(n - 1, k - 1);
}

/// Partitions of n items into at most `blocks` blocks.
double partitions(int n, int blocks) {
  double s = 0;
  for (int j = 0; j <= std::min(n, blocks); ++j) s += stirling2(n, j);
  return s;
}

/// A plan with its table-wise devices renamed in order of first use: equal for plans that differ
/// only by renaming devices.
std::vector<int> renamed(const workload::ShardPlan& plan) {
  std::map<int, int> names;
  std::vector<int> out;
  for (const auto& c : plan) {
    if (c.sharding != TableSharding::TableWise) {
      out.push_back(-1 - static_cast<int>(c.sharding));
      continue;
    }
    const auto it = names.try_emplace(c.rank, static_cast<int>(names.size())).first;
    out.push_back(it->second);
  }
  return out;
}

}  // namespace

TEST_CASE("exhaustive plans: one per class of device renamings, as many as the set-partition count",
          "[workload][dlrm][shard]") {
  const int group = 8, count = 5;
  const auto spec = tables(count);  // rows >= 8 and 8 | 64: row-, column-wise and data parallel, m = 3
  const ShardSpace space{group, true, workload::kAutoPlacement};
  double expected = 0;
  for (int k = 0; k <= count; ++k) expected += binomial(count, k) * partitions(k, group) * std::pow(3.0, count - k);
  CHECK(static_cast<double>(workload::exhaustive_plan_count(spec, space)) == expected);
  const auto plans = workload::exhaustive_plans(spec, space, 100000);
  REQUIRE(static_cast<double>(plans.size()) == expected);
  std::set<std::vector<int>> classes;
  for (const auto& p : plans) classes.insert(renamed(p));
  CHECK(classes.size() == plans.size());  // no two plans are renamings of each other
}

TEST_CASE("exhaustive plans: at most G devices, tiny tables not row-wise, odd dims not column-wise",
          "[workload][dlrm][shard]") {
  // Three tables on 2 devices: partitions into at most 2 blocks; 3 rows < 4 devices drops row-wise.
  auto spec = tables(3, 1e6, 6);  // 6 % 4 != 0: no column-wise on 4 devices
  spec.tables[2].rows = 3;
  const ShardSpace four{4, true, workload::kAutoPlacement};
  // Tables 0 and 1 have m = 2 (row-wise, data parallel), table 2 m = 1 (data parallel): count by
  // which tables are table-wise.
  double expected = 0;
  for (int mask = 0; mask < 8; ++mask) {
    int k = 0;
    double others = 1;
    for (int t = 0; t < 3; ++t) {
      if (mask & (1 << t))
        ++k;
      else
        others *= t == 2 ? 1 : 2;
    }
    expected += partitions(k, 4) * others;
  }
  CHECK(static_cast<double>(workload::exhaustive_plan_count(spec, four)) == expected);
  const ShardSpace two{2, true, workload::kAutoPlacement};
  CHECK(workload::exhaustive_plan_count(tables(3), two) ==
        static_cast<std::uint64_t>(binomial(3, 0) * 27 + binomial(3, 1) * 9 + binomial(3, 2) * 2 * 3 +
                                   partitions(3, 2)));
}

TEST_CASE("exhaustive plans: a distinguished device and devices that are not interchangeable",
          "[workload][dlrm][shard]") {
  const int group = 4, count = 4;
  const auto spec = tables(count);
  // The bottom MLP's device 0 is its own: of the k table-wise tables, some subset sits on it and
  // the rest partition among the other 3 devices.
  double expected = 0;
  for (int k = 0; k <= count; ++k) {
    double table_wise = 0;
    for (int on0 = 0; on0 <= k; ++on0) table_wise += binomial(k, on0) * partitions(k - on0, group - 1);
    expected += binomial(count, k) * table_wise * std::pow(3.0, count - k);
  }
  const auto plans = workload::exhaustive_plans(spec, ShardSpace{group, true, 0}, 100000);
  CHECK(static_cast<double>(plans.size()) == expected);
  // Across nodes every device is its own: (G + m)^T.
  CHECK(workload::exhaustive_plan_count(spec, ShardSpace{group, false, workload::kAutoPlacement}) ==
        static_cast<std::uint64_t>(std::pow(group + 3, count)));
}

TEST_CASE("exhaustive plans: a space beyond the limit is refused before it is built", "[workload][dlrm][shard]") {
  const auto spec = tables(40);
  const ShardSpace space{8, false, workload::kAutoPlacement};
  CHECK(workload::exhaustive_plan_count(spec, space) == std::numeric_limits<std::uint64_t>::max());  // 11^40 saturates
  CHECK_THROWS_WITH(workload::exhaustive_plans(spec, space, 1000), Catch::Contains("more than the limit of 1000"));
}

TEST_CASE("a plan applied to a spec, and its text", "[workload][dlrm][shard]") {
  const auto spec = tables(3);
  const workload::ShardPlan plan = {{TableSharding::TableWise, 5, 0, workload::kAutoPlacement},
                                    {TableSharding::RowWise, workload::kAutoPlacement, 0, workload::kAutoPlacement},
                                    {TableSharding::DataParallel, workload::kAutoPlacement, 0, workload::kAutoPlacement}};
  const auto placed = workload::with_plan(spec, plan);
  CHECK(placed.tables[0].rank == 5);
  CHECK(placed.tables[1].sharding == TableSharding::RowWise);
  CHECK(placed.tables[2].rows == spec.tables[2].rows);
  CHECK(workload::written_plan(placed) == plan);
  CHECK(workload::plan_text(spec, plan) == "t0@5 t1:rw t2:dp");
  CHECK_THROWS(workload::with_plan(spec, workload::ShardPlan(2)));
}
