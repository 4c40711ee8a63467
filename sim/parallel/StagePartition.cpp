#include "parallel/StagePartition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/Errors.hpp"
#include "workload/WorkloadType.hpp"

namespace clearfog::parallel {

namespace {

/// Whether `units` costs fit in `chunks` contiguous groups each of at most `bound`.
bool fits(const std::vector<double>& cost, int chunks, double bound) {
  int used = 1;
  double sum = 0;
  for (double c : cost) {
    if (c > bound) return false;
    if (sum + c > bound) {
      ++used;
      sum = 0;
    }
    sum += c;
  }
  return used <= chunks;
}

/// The contiguous split of `cost` into `chunks` non-empty groups whose largest sum is least
/// (the linear partition problem): the least feasible bound is one of the contiguous sums, found
/// by binary search over them; groups are then filled greedily up to it, keeping one unit for each
/// group still to come.
std::vector<int> balanced_split(const std::vector<double>& cost, int chunks) {
  const int n = static_cast<int>(cost.size());
  std::vector<double> prefix(cost.size() + 1, 0.0);
  std::partial_sum(cost.begin(), cost.end(), prefix.begin() + 1);
  std::vector<double> sums;
  sums.reserve(static_cast<std::size_t>(n) * (n + 1) / 2);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j <= n; ++j) sums.push_back(prefix[j] - prefix[i]);
  std::sort(sums.begin(), sums.end());
  sums.erase(std::unique(sums.begin(), sums.end()), sums.end());
  const auto bound = *std::partition_point(sums.begin(), sums.end(), [&](double b) { return !fits(cost, chunks, b); });
  std::vector<int> split;
  int next = 0;
  for (int c = 0; c < chunks; ++c) {
    const int left_for_others = chunks - c - 1;
    double sum = 0;
    int count = 0;
    while (next < n - left_for_others && (count == 0 || sum + cost[next] <= bound)) {
      sum += cost[next++];
      ++count;
    }
    split.push_back(count);
  }
  split.back() += n - next;  // never happens when the bound is feasible; kept for safety
  return split;
}

}  // namespace

std::vector<int> split_units(int units, int chunks, config::StagePartition how, const std::vector<int>& layer_split,
                             const std::vector<double>& unit_cost_s) {
  if (chunks < 1) throw Error(fmt::format("pipeline partition: {} model chunks (need at least 1)", chunks));
  if (!layer_split.empty()) {
    if (static_cast<int>(layer_split.size()) != chunks ||
        std::accumulate(layer_split.begin(), layer_split.end(), 0) != units)
      throw Error(fmt::format("parallelism.layer_split must have {} entries summing to {}", chunks, units));
    return layer_split;
  }
  if (how == config::StagePartition::Even) {
    if (units % chunks != 0)
      throw Error(fmt::format("{} pipeline units cannot be split evenly over {} model chunks", units, chunks));
    return std::vector<int>(static_cast<std::size_t>(chunks), units / chunks);
  }
  if (units < chunks)
    throw Error(fmt::format("{} pipeline units cannot fill {} model chunks", units, chunks));
  if (static_cast<int>(unit_cost_s.size()) != units)
    throw Error(fmt::format("pipeline partition: {} unit costs for {} units", unit_cost_s.size(), units));
  return balanced_split(unit_cost_s, chunks);
}

std::vector<BlockRange> partition_blocks(const workload::ModelDescription& model, int chunks,
                                         config::StagePartition how, const std::vector<int>& layer_split,
                                         const std::vector<double>& block_cost_s) {
  // Units and the blocks that travel with each (leading non-units join the first unit, trailing
  // ones the last).
  std::vector<std::size_t> unit_first;  // first block of each unit's group
  for (std::size_t i = 0; i < model.blocks.size(); ++i)
    if (model.blocks[i].pipeline_unit) unit_first.push_back(unit_first.empty() ? 0 : i);
  if (unit_first.empty()) throw Error(fmt::format("model ({}) has no pipeline unit", model.type));
  std::vector<double> unit_cost(unit_first.size(), 0.0);
  for (std::size_t u = 0; u < unit_first.size(); ++u) {
    const std::size_t end = u + 1 < unit_first.size() ? unit_first[u + 1] : model.blocks.size();
    for (std::size_t i = unit_first[u]; i < end; ++i) unit_cost[u] += block_cost_s.empty() ? 0.0 : block_cost_s[i];
  }
  const auto split = split_units(static_cast<int>(unit_first.size()), chunks, how, layer_split, unit_cost);
  std::vector<BlockRange> ranges;
  std::size_t unit = 0;
  for (int count : split) {
    const std::size_t begin = unit_first[unit];
    unit += static_cast<std::size_t>(count);
    ranges.push_back({begin, unit < unit_first.size() ? unit_first[unit] : model.blocks.size()});
  }
  return ranges;
}

config::StagePartition partition_of(const config::ScenarioSpec& scenario) {
  switch (scenario.parallelism.partition) {
    case config::StagePartitionChoice::Even: return config::StagePartition::Even;
    case config::StagePartitionChoice::Balanced: return config::StagePartition::Balanced;
    case config::StagePartitionChoice::Auto: break;
  }
  return workload::workload_type(scenario.workload.type).default_partition();
}

}  // namespace clearfog::parallel
