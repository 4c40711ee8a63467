#pragma once
// Where a DLRM's embedding tables live: each table's shards (device, rows, columns) among the
// devices the tables are sharded over, explicit placements as written and the others by a greedy
// planner that balances lookup bytes (TorchRec's greedy perf-based partitioner). docs/dlrm.md,
// "Sharding".
#include <string>
#include <vector>

#include "workload/types/DlrmSpec.hpp"

namespace clearfog::workload {

struct TableShard {
  int rank = 0;     // device in the sharding group
  double rows = 0;  // rows this device holds
  int dim = 0;      // columns this device holds
};

struct TablePlacement {
  std::vector<TableShard> shards;  // data-parallel: one per device
  /// Row-wise over the whole group: the partial sums are reduce-scattered (their gradients
  /// all-gathered) instead of sent point to point.
  bool group_reduce_scatter = false;
};

/// Lookup bytes per sample of a table (pooling x dim): what the greedy placement balances.
double table_load(const EmbeddingTable& table);

/// What is wrong with `table`'s written placement on `group` devices in nodes of `node_devices`
/// (rank, shards or host outside the group, columns that do not split); empty when nothing.
std::string placement_problem(const EmbeddingTable& table, int group, int node_devices);

/// Every table's shards. Throws clearfog::Error with placement_problem()'s message.
std::vector<TablePlacement> place_tables(const DlrmSpec& spec, int group, int node_devices);

}  // namespace clearfog::workload
