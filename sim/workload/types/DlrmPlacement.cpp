// Table placement (docs/dlrm.md, "Sharding"): explicit ranks first, then the greedy planner.
#include "workload/types/DlrmPlacement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/Errors.hpp"

namespace clearfog::workload {

namespace {

/// Devices a row- or column-wise table spans by default.
int default_shards(const EmbeddingTable& t, int group) {
  if (t.sharding == TableSharding::RowWise) return group;
  int s = std::min(group, t.dim);
  while (t.dim % s != 0) --s;  // the largest divisor of dim not above the group
  return s;
}

int shards_of(const EmbeddingTable& t, int group) { return t.shards > 0 ? t.shards : default_shards(t, group); }

int hosts_of(int group, int node_devices) { return std::max(1, group / std::max(1, std::min(group, node_devices))); }

/// Rows of shard i of n: the first rows % n shards hold one more (torch.chunk-like, whole rows).
double rows_of_shard(double rows, int n, int i) {
  const double base = std::floor(rows / n);
  return base + (i < static_cast<int>(rows - base * n) ? 1.0 : 0.0);
}

struct Loads {
  std::vector<double> by_rank;
  void add(int rank, double load) { by_rank[static_cast<std::size_t>(rank)] += load; }
  [[nodiscard]] int least_loaded(const std::vector<int>& except = {}) const {
    int best = -1;
    for (int r = 0; r < static_cast<int>(by_rank.size()); ++r) {
      if (std::find(except.begin(), except.end(), r) != except.end()) continue;
      if (best < 0 || by_rank[r] < by_rank[best]) best = r;
    }
    return best;
  }
};

TablePlacement place(const EmbeddingTable& t, int group, int node_devices, Loads& loads) {
  TablePlacement p;
  const double load = table_load(t);
  switch (t.sharding) {
    case TableSharding::DataParallel:
      for (int r = 0; r < group; ++r) p.shards.push_back({r, t.rows, t.dim});
      return p;  // every device looks up its own samples: no imbalance to plan
    case TableSharding::TableWise: {
      const int r = t.rank != kAutoPlacement ? t.rank : loads.least_loaded();
      p.shards.push_back({r, t.rows, t.dim});
      loads.add(r, load);
      return p;
    }
    case TableSharding::ColumnWise: {
      const int n = shards_of(t, group);
      std::vector<int> used;
      for (int i = 0; i < n; ++i) {
        const int r = t.rank != kAutoPlacement ? t.rank + i : loads.least_loaded(used);
        used.push_back(r);
        p.shards.push_back({r, t.rows, t.dim / n});
        loads.add(r, load / n);
      }
      return p;
    }
    case TableSharding::RowWise: {
      const int n = shards_of(t, group), first = t.rank != kAutoPlacement ? t.rank : 0;
      for (int i = 0; i < n; ++i) {
        p.shards.push_back({first + i, rows_of_shard(t.rows, n, i), t.dim});
        loads.add(first + i, load / n);
      }
      p.group_reduce_scatter = n == group;
      return p;
    }
    case TableSharding::TableRowWise: {
      const int g = std::min(group, std::max(1, node_devices));
      int host = t.host;
      if (host == kAutoPlacement) {
        double best = 0;
        for (int h = 0; h < hosts_of(group, node_devices); ++h) {
          double sum = 0;
          for (int i = 0; i < g; ++i) sum += loads.by_rank[static_cast<std::size_t>(h * g + i)];
          if (h == 0 || sum < best) {
            best = sum;
            host = h;
          }
        }
      }
      for (int i = 0; i < g; ++i) {
        p.shards.push_back({host * g + i, rows_of_shard(t.rows, g, i), t.dim});
        loads.add(host * g + i, load / g);
      }
      p.group_reduce_scatter = g == group;
      return p;
    }
  }
  return p;
}

}  // namespace

double table_load(const EmbeddingTable& t) { return t.pooling * t.dim; }

std::string placement_problem(const EmbeddingTable& t, int group, int node_devices) {
  const int n = t.sharding == TableSharding::RowWise || t.sharding == TableSharding::ColumnWise ? shards_of(t, group) : 1;
  if (t.rank != kAutoPlacement && t.rank + n > group)
    return fmt::format("table '{}': rank {}{} is outside the {} devices its tables are sharded over (0 .. {})", t.name,
                       t.rank, n > 1 ? fmt::format(" with {} shards", n) : "", group, group - 1);
  if (n > group) return fmt::format("table '{}': {} shards exceed the {} devices", t.name, n, group);
  if (t.sharding == TableSharding::ColumnWise && t.dim % n != 0)
    return fmt::format("table '{}': {} column shards do not divide dim {}", t.name, n, t.dim);
  if (t.sharding == TableSharding::RowWise && static_cast<double>(n) > t.rows)
    return fmt::format("table '{}': {} row shards exceed its {} rows", t.name, n, t.rows);
  const int node = std::min(group, std::max(1, node_devices));
  if (t.sharding == TableSharding::TableRowWise && static_cast<double>(node) > t.rows)
    return fmt::format("table '{}': its {} rows cannot be split over the {} devices of a node (table-row-wise needs a "
                       "row per device)",
                       t.name, t.rows, node);
  const int hosts = hosts_of(group, node_devices);
  if (t.sharding == TableSharding::TableRowWise && t.host != kAutoPlacement && t.host >= hosts)
    return fmt::format("table '{}': host {} is outside the {} nodes of the sharding group (0 .. {})", t.name, t.host,
                       hosts, hosts - 1);
  return {};
}

std::vector<TablePlacement> place_tables(const DlrmSpec& spec, int group, int node_devices) {
  if (group < 1) throw Error(fmt::format("place_tables: the sharding group must have >= 1 device, got {}", group));
  for (const auto& t : spec.tables)
    if (const auto problem = placement_problem(t, group, node_devices); !problem.empty()) throw Error(problem);
  Loads loads{std::vector<double>(static_cast<std::size_t>(group), 0.0)};
  std::vector<TablePlacement> placed(spec.tables.size());
  // Explicit placements first, so that the greedy planner sees their load; then the others by
  // decreasing load (ties in table order), each on the least loaded device (ties: the lowest).
  std::vector<std::size_t> automatic;
  for (std::size_t i = 0; i < spec.tables.size(); ++i) {
    const auto& t = spec.tables[i];
    const bool written = t.sharding == TableSharding::DataParallel || t.sharding == TableSharding::RowWise ||
                         (t.sharding == TableSharding::TableRowWise ? t.host : t.rank) != kAutoPlacement;
    if (written)
      placed[i] = place(t, group, node_devices, loads);
    else
      automatic.push_back(i);
  }
  std::stable_sort(automatic.begin(), automatic.end(), [&](std::size_t a, std::size_t b) {
    return table_load(spec.tables[a]) > table_load(spec.tables[b]);
  });
  for (const std::size_t i : automatic) placed[i] = place(spec.tables[i], group, node_devices, loads);
  return placed;
}

}  // namespace clearfog::workload
