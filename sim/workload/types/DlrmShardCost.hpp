#pragma once
// What a sharding plan costs, estimated without simulating it (the "pick without running anything"
// of the sharding search, as TorchRec's planner estimates each shard): each device's embedding
// kernels priced by the kernel model, its share of the three all-to-alls at its injection bandwidth,
// the row-wise reduce-scatters and all-gathers, and the data-parallel tables' gradient all-reduce.
// docs/dlrm.md, "Choosing the sharding", has the equations.
#include <functional>
#include <vector>

#include "config/CollectiveSpec.hpp"
#include "core/DType.hpp"
#include "kernels/Kernel.hpp"
#include "workload/types/DlrmSpec.hpp"

namespace clearfog::workload {

struct ShardCostInputs {
  int group = 1;          // devices the tables are sharded over
  int node_devices = 1;   // devices per node (table-row-wise hosts; which peers are across nodes)
  int micro_batch = 1;    // samples per device
  DType precision = DType::fp32;     // of the pooled embeddings and their gradients
  double intra_node_Bps = 0;         // a device's bandwidth to its node's switch, per direction
  double inter_node_Bps = 0;         // a device's share of its node's NICs, per direction
  double capacity_B = 0;             // device memory the tables may use (0: not checked)
  const kernels::KernelCostModel* costs = nullptr;
  /// An all-to-all's fixed cost (the platform's Simple step overhead and the route's latency) and
  /// the share of the link bandwidth its transfers get (Simple's copy efficiency).
  double exchange_overhead_s = 0;
  double exchange_efficiency = 1;
  /// Time of a reduce-scatter, all-gather or all-reduce of `bytes` (the nccl-tests size) over the
  /// whole group, as the collective layer would run it; empty: a ring at the bandwidth above.
  std::function<double(config::CollectiveOp op, double bytes)> group_collective_s;
  /// The MLPs' gradients and DDP's bucket size: replicated tables' gradients are ready only after
  /// the embeddings' backward, the last pass, so the bucket holding them — with up to a bucket of
  /// the MLPs' gradients — is all-reduced after it, exposed.
  double dense_gradient_B = 0;
  double bucket_B = 0;
};

struct ShardEstimate {
  std::vector<double> lookup_s;    // per device: embedding kernels, forward and backward
  std::vector<double> exchange_s;  // per device: its all-to-all, reduce-scatter, all-gather time
  std::vector<double> table_B;     // per device: rows and optimizer state held (replicated tables too)
  std::vector<double> moved_B;     // per device: bytes it sends and receives in the exchanges
  double allreduce_s = 0;          // the exposed all-reduce of the bucket holding replicated tables
  double step_s = 0;               // max over devices of lookup + exchange, plus the all-reduce
  bool fits = true;                // every device's table_B within capacity_B

  /// The busiest device's lookup time over the mean: 1 is perfectly balanced.
  [[nodiscard]] double lookup_imbalance() const;
  [[nodiscard]] double max_moved_B() const;
  [[nodiscard]] double max_table_B() const;
};

/// The estimate for `spec` as its tables are written (explicit placements, the greedy placement
/// for the rest). Throws clearfog::Error for a placement outside the group.
ShardEstimate estimate_sharding(const DlrmSpec& spec, const ShardCostInputs& inputs);

}  // namespace clearfog::workload
