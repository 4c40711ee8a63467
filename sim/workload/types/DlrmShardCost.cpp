// The sharding estimate (docs/dlrm.md, "Choosing the sharding"): the embedding block of the plan,
// priced device by device.
#include "workload/types/DlrmShardCost.hpp"

#include <algorithm>
#include <numeric>

#include "core/Errors.hpp"
#include "workload/types/DlrmBlocks.hpp"
#include "workload/types/DlrmPlacement.hpp"

namespace clearfog::workload {

namespace {

using Matrix = std::vector<std::vector<double>>;

struct Rates {
  const ShardCostInputs& in;
  [[nodiscard]] bool same_node(std::size_t a, std::size_t b) const {
    const auto n = static_cast<std::size_t>(std::max(1, in.node_devices));
    return a / n == b / n;
  }
  /// Time for device r to send and receive `m`'s row and column r: intra- and inter-node bytes
  /// each at their bandwidth, sending and receiving at once (full duplex).
  [[nodiscard]] double exchange_s(const Matrix& m, std::size_t r, double& moved_B) const {
    double send_in = 0, recv_in = 0, send_out = 0, recv_out = 0;
    for (std::size_t j = 0; j < m.size(); ++j) {
      if (j == r) continue;
      (same_node(r, j) ? send_in : send_out) += m[r][j];
      (same_node(r, j) ? recv_in : recv_out) += m[j][r];
    }
    moved_B += send_in + recv_in + send_out + recv_out;
    return in.exchange_overhead_s + (std::max(send_in, recv_in) / in.intra_node_Bps +
                                     std::max(send_out, recv_out) / in.inter_node_Bps) /
                                        in.exchange_efficiency;
  }
  /// A reduce-scatter, all-gather or all-reduce of `bytes` over the group: as the collective layer
  /// prices it, else a ring at the group's bandwidth.
  [[nodiscard]] double collective_s(config::CollectiveOp op, double bytes) const {
    if (in.group_collective_s) return in.group_collective_s(op, bytes);
    const double p = in.group;
    const double bw = in.group > in.node_devices ? in.inter_node_Bps : in.intra_node_Bps;
    return (op == config::CollectiveOp::AllReduce ? 2 : 1) * (p - 1) / p * bytes / bw;
  }
};

double kernels_s(const std::vector<kernels::Kernel>& ks, const kernels::KernelCostModel& costs) {
  double t = 0;
  for (const auto& k : ks) t += costs.cost(k).time_s;
  return t;
}

void add_segment(const Segment& s, const Rates& rates, const kernels::KernelCostModel& costs, ShardEstimate& e) {
  for (std::size_t r = 0; r < s.kernels_by_expert_rank.size() && r < e.lookup_s.size(); ++r)
    e.lookup_s[r] += kernels_s(s.kernels_by_expert_rank[r], costs);
  if (!s.comm.active()) return;
  for (std::size_t r = 0; r < e.exchange_s.size(); ++r) {
    if (!s.comm.matrix.empty()) {
      e.exchange_s[r] += rates.exchange_s(s.comm.matrix, r, e.moved_B[r]);
    } else {
      const double p = rates.in.group;
      e.exchange_s[r] += rates.collective_s(s.comm.ops.front(), s.comm.bytes);
      e.moved_B[r] += 2 * (p - 1) / p * s.comm.bytes;
    }
  }
}

}  // namespace

double ShardEstimate::lookup_imbalance() const {
  if (lookup_s.empty()) return 1;
  const double mean = std::accumulate(lookup_s.begin(), lookup_s.end(), 0.0) / static_cast<double>(lookup_s.size());
  return mean > 0 ? *std::max_element(lookup_s.begin(), lookup_s.end()) / mean : 1;
}

double ShardEstimate::max_moved_B() const { return moved_B.empty() ? 0 : *std::max_element(moved_B.begin(), moved_B.end()); }

double ShardEstimate::max_table_B() const { return table_B.empty() ? 0 : *std::max_element(table_B.begin(), table_B.end()); }

ShardEstimate estimate_sharding(const DlrmSpec& spec, const ShardCostInputs& in) {
  if (in.costs == nullptr || in.intra_node_Bps <= 0 || in.inter_node_Bps <= 0)
    throw Error("estimate_sharding needs a kernel cost model and positive bandwidths");
  const auto n = static_cast<std::size_t>(std::max(1, in.group));
  DescribeOptions options;
  options.micro_batch = in.micro_batch;
  options.precision = in.precision;
  options.ep = in.group;
  options.node_devices = in.node_devices;
  const Block block = embedding_block(spec, place_tables(spec, in.group, in.node_devices), options);
  ShardEstimate e;
  e.lookup_s.assign(n, 0.0);
  e.exchange_s.assign(n, 0.0);
  e.moved_B.assign(n, 0.0);
  e.table_B.assign(n, 0.0);
  const Rates rates{in};
  for (const auto* pass : {&block.forward, &block.backward})
    for (const auto& s : *pass) add_segment(s, rates, *in.costs, e);
  // Replicated tables: every device holds the rows and their gradient (in the training precision);
  // DDP all-reduces it in the last bucket, after the embeddings' backward.
  double replicated = 0;
  for (const auto& p : block.params) replicated += p.elements;
  const double replicated_B = replicated * dtype_bytes(spec.embedding_precision);
  const double gradient_B = replicated * dtype_bytes(in.precision);
  const double bucket_B = gradient_B + std::min(in.dense_gradient_B, in.bucket_B);
  e.allreduce_s =
      in.group > 1 && replicated > 0 ? rates.collective_s(config::CollectiveOp::AllReduce, bucket_B) : 0;
  for (std::size_t r = 0; r < n; ++r) {
    if (r < block.sparse_weights_B_by_expert_rank.size()) e.table_B[r] += block.sparse_weights_B_by_expert_rank[r];
    if (r < block.sparse_optimizer_B_by_expert_rank.size()) e.table_B[r] += block.sparse_optimizer_B_by_expert_rank[r];
    e.table_B[r] += replicated_B + gradient_B;
    e.step_s = std::max(e.step_s, e.lookup_s[r] + e.exchange_s[r]);
  }
  e.step_s += e.allreduce_s;
  e.fits = in.capacity_B <= 0 || e.max_table_B() <= in.capacity_B;
  return e;
}

}  // namespace clearfog::workload
