#pragma once
// The sharding search's planner: every table's sharding picked by the estimate of DlrmShardCost, in
// the manner of TorchRec's planner (enumerate each table's sharding options, estimate them, propose
// complete plans, keep the cheapest). It simulates nothing.
// docs/dlrm.md, "Choosing the sharding".
#include "workload/types/DlrmShardCost.hpp"
#include "workload/types/DlrmShardPlan.hpp"

namespace clearfog::workload {

/// The choices the greedy planner weighs for `table` on `inputs.group` devices, in tie-break
/// order: table-wise on each device, column-wise, row-wise, table-row-wise on each node (several
/// nodes only), data parallel; those the group cannot hold (more row shards than rows) left out.
std::vector<TableChoice> greedy_choices(const EmbeddingTable& table, const ShardCostInputs& inputs);

/// The planner's pick, in the manner of TorchRec's proposers: several complete proposals — each
/// table in turn taking the choice best for the tables placed so far (costliest first: by their
/// estimate alone, table-wise on one device), and every table table-wise (balanced by load),
/// column-wise, row-wise or data parallel — the best by estimate, then improved one table at a
/// time while a change lowers the estimate. A plan that fits in memory beats one that does not;
/// ties keep the earlier proposal or choice.
ShardPlan greedy_plan(const DlrmSpec& spec, const ShardCostInputs& inputs);

}  // namespace clearfog::workload
