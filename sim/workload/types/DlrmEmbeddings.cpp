// The sharded embeddings of a DLRM, device by device (docs/dlrm.md, "Embedding kernels" and
// "Sharding"): what each device looks up and updates, what it sends each peer.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kernels/EmbeddingBagModel.hpp"
#include "workload/types/DlrmBlocks.hpp"

namespace clearfog::workload {

using kernels::EmbeddingAccess;
using kernels::Kernel;

namespace {

constexpr double kOptimizerStateBytes = 4;  // an fp32 optimizer state element
constexpr double kRadixDigitBits = 8;  // CUB onesweep radix sort: one 8-bit digit per pass

/// Optimizer state per row (FBGEMM's TBE optimizers): SGD none; row-wise Adagrad one fp32 per row;
/// Adagrad one fp32 per element; Adam two (m and v).
double state_B_per_row(EmbeddingOptimizer o, int dim) {
  switch (o) {
    case EmbeddingOptimizer::Sgd: return 0;
    case EmbeddingOptimizer::RowwiseAdagrad: return kOptimizerStateBytes;
    case EmbeddingOptimizer::Adagrad: return kOptimizerStateBytes * dim;
    case EmbeddingOptimizer::Adam: return 2 * kOptimizerStateBytes * dim;
  }
  return 0;
}

/// One device's embedding work, summed over the table shards it holds.
struct DeviceWork {
  std::vector<EmbeddingAccess> forward, backward, update;
  double forward_B = 0, backward_B = 0, update_B = 0, sort_B = 0;  // streamed bytes
  double forward_flops = 0, backward_flops = 0;
  double kept_B = 0;  // indices and offsets kept for the backward
  void add(const DeviceWork& o);
};

void DeviceWork::add(const DeviceWork& o) {
  forward.insert(forward.end(), o.forward.begin(), o.forward.end());
  backward.insert(backward.end(), o.backward.begin(), o.backward.end());
  update.insert(update.end(), o.update.begin(), o.update.end());
  forward_B += o.forward_B;
  backward_B += o.backward_B;
  update_B += o.update_B;
  sort_B += o.sort_B;
  forward_flops += o.forward_flops;
  backward_flops += o.backward_flops;
  kept_B += o.kept_B;
}

/// The work of one shard that serves `samples` samples and sees `lookups` of its rows.
DeviceWork shard_work(const DlrmSpec& spec, const EmbeddingTable& t, const TableShard& shard, double samples,
                      double lookups, double out_B, bool replicated) {
  DeviceWork w;
  const double row_B = shard.dim * dtype_bytes(spec.embedding_precision);
  const double index_B = lookups * kIndexBytes + samples * kLengthBytes;
  const double pooled_B = samples * shard.dim * out_B;
  // Forward: read the indices and offsets, gather the rows, write the pooled vectors.
  w.forward.push_back({lookups, row_B, shard.rows, row_B, t.distribution});
  w.forward_B = index_B + pooled_B;
  w.forward_flops = lookups * shard.dim;
  w.kept_B = index_B;
  // Backward: read the pooled gradient and the indices again, then add each lookup's gradient to its
  // row (read, write). A replicated table accumulates into its dense gradient, which DDP reduces.
  w.backward_B = index_B + pooled_B;
  w.backward_flops = lookups * shard.dim;
  if (replicated) {
    w.backward.push_back({lookups, 2 * row_B, shard.rows, row_B, t.distribution});
    return w;
  }
  double updates = lookups;
  if (spec.deduplicate) {
    // Sort (index, position) pairs by index: one read and one write of them per radix digit.
    const double passes = std::max(1.0, std::ceil(std::log2(std::max(2.0, shard.rows)) / kRadixDigitBits));
    w.sort_B = 2 * passes * lookups * (kIndexBytes + kLengthBytes);
    updates = kernels::expected_distinct_rows(t.distribution, shard.rows, lookups);
  }
  const double state_B = state_B_per_row(spec.embedding_optimizer, shard.dim);
  const EmbeddingAccess update{updates, 2 * row_B + 2 * state_B, shard.rows, row_B, t.distribution};
  if (spec.fused_optimizer) {
    w.backward.push_back(update);
  } else {
    w.backward_B += updates * row_B;  // the sparse gradient rows
    w.update.push_back(update);
    w.update_B = updates * row_B;
  }
  return w;
}

std::vector<Kernel> forward_kernels(const DeviceWork& w, const std::string& prefix, DType dtype) {
  if (w.forward.empty()) return {};
  return {Kernel::make_embedding_bag(prefix + ".fwd", w.forward, w.forward_B, w.forward_flops, dtype)};
}

std::vector<Kernel> backward_kernels(const DeviceWork& w, const std::string& prefix, DType dtype) {
  std::vector<Kernel> k;
  if (w.sort_B > 0) k.push_back(Kernel::make_memory_bound(prefix + ".bwd.sort", w.sort_B, 0, dtype));
  if (!w.backward.empty())
    k.push_back(Kernel::make_embedding_bag(prefix + ".bwd", w.backward, w.backward_B, w.backward_flops, dtype));
  if (!w.update.empty()) k.push_back(Kernel::make_embedding_bag(prefix + ".update", w.update, w.update_B, 0, dtype));
  return k;
}

using Matrix = std::vector<std::vector<double>>;

Matrix transposed(const Matrix& m) {
  Matrix t(m.size(), std::vector<double>(m.size(), 0.0));
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < m.size(); ++j) t[j][i] = m[i][j];
  return t;
}

double total(const Matrix& m) {
  double s = 0;
  for (const auto& row : m)
    for (double v : row) s += v;
  return s;
}

workload::CommPoint point(std::string name, config::CollectiveOp op, double bytes, Matrix matrix, int ep) {
  auto c = CommPoint::named(std::move(name), bytes);
  c.group = CommGroup::Expert;
  c.matrix = std::move(matrix);
  if (ep > 1 && (bytes > 0 || total(c.matrix) > 0)) c.ops = {op};
  return c;
}

}  // namespace

Block embedding_block(const DlrmSpec& spec, const std::vector<TablePlacement>& placement, const DescribeOptions& o) {
  const int ep = std::max(1, o.ep);
  const double b = o.micro_batch, out_B = dtype_bytes(o.precision), global = b * ep;
  const auto n = static_cast<std::size_t>(ep);
  std::vector<DeviceWork> sharded(n), replicated(n);
  std::vector<double> weights_B(n, 0.0), optimizer_B(n, 0.0);
  Matrix indices(n, std::vector<double>(n, 0.0)), pooled = indices;
  double reduce_scatter_B = 0, pooled_dims = 0;
  Block block;
  block.name = block.type = "embeddings";
  for (std::size_t i = 0; i < spec.tables.size(); ++i) {
    const auto& t = spec.tables[i];
    const auto& p = placement[i];
    pooled_dims += t.dim;
    if (t.sharding == TableSharding::DataParallel) {
      for (const auto& s : p.shards)
        replicated[s.rank].add(shard_work(spec, t, s, b, b * t.pooling, out_B, true));
      block.params.push_back(ParamTensor{t.name + ".weight", t.rows * t.dim, t.rows * t.dim, ""});
      continue;
    }
    block.sparse_model_parameters += t.rows * t.dim;
    const bool partial_sums = t.sharding == TableSharding::RowWise || t.sharding == TableSharding::TableRowWise;
    if (p.group_reduce_scatter) reduce_scatter_B += global * t.dim * out_B;
    for (const auto& s : p.shards) {
      const double share = partial_sums ? s.rows / t.rows : 1.0;  // of the table's lookups
      const auto r = static_cast<std::size_t>(s.rank);
      sharded[r].add(shard_work(spec, t, s, global, global * t.pooling * share, out_B, false));
      weights_B[r] += s.rows * s.dim * dtype_bytes(spec.embedding_precision);
      optimizer_B[r] += s.rows * state_B_per_row(spec.embedding_optimizer, s.dim);
      for (std::size_t j = 0; j < n; ++j) {
        if (j == r) continue;
        // Each device sends the owner its samples' indices (bucketized by rows when row-split) and
        // lengths; the owner sends each device its samples' pooled vectors (or partial sums).
        indices[j][r] += b * t.pooling * share * kIndexBytes + b * kLengthBytes;
        if (!p.group_reduce_scatter) pooled[r][j] += b * (partial_sums ? t.dim : s.dim) * out_B;
      }
    }
  }
  // A model-parallel bottom MLP's device sends each device its samples' dense features' outputs.
  if (spec.bottom_mlp_rank != kAutoPlacement && ep > 1)
    for (std::size_t j = 0; j < n; ++j)
      if (j != static_cast<std::size_t>(spec.bottom_mlp_rank))
        pooled[static_cast<std::size_t>(spec.bottom_mlp_rank)][j] += b * spec.bottom_mlp.back() * out_B;
  std::vector<std::vector<Kernel>> forward(n), backward(n);
  double kept = 0;
  for (std::size_t r = 0; r < n; ++r) {
    for (auto&& k : forward_kernels(sharded[r], "tbe", o.precision)) forward[r].push_back(std::move(k));
    for (auto&& k : forward_kernels(replicated[r], "dp_tables", o.precision)) forward[r].push_back(std::move(k));
    for (auto&& k : backward_kernels(replicated[r], "dp_tables", o.precision)) backward[r].push_back(std::move(k));
    for (auto&& k : backward_kernels(sharded[r], "tbe", o.precision)) backward[r].push_back(std::move(k));
    kept = std::max(kept, sharded[r].kept_B + replicated[r].kept_B);
  }
  const double sent_indices = total(indices) / ep, sent_pooled = total(pooled) / ep;
  const auto add = [](std::vector<Segment>& pass, Segment s) {
    if (s.comm.active() || !s.kernels_by_expert_rank.empty()) pass.push_back(std::move(s));
  };
  using config::CollectiveOp;
  add(block.forward, make_segment("input_dist", {}, point("index_a2a", CollectiveOp::AllToAll, sent_indices, indices, ep)));
  Segment lookup = make_segment("lookup", {}, point("pooled_a2a", CollectiveOp::AllToAll, sent_pooled, pooled, ep));
  lookup.kernels_by_expert_rank = forward;
  add(block.forward, std::move(lookup));
  add(block.forward, make_segment("pooled_rs", {}, point("row_rs", CollectiveOp::ReduceScatter, reduce_scatter_B, {}, ep)));
  add(block.backward, make_segment("grad_ag", {}, point("row_ag", CollectiveOp::AllGather, reduce_scatter_B, {}, ep)));
  add(block.backward,
      make_segment("grad_dist", {}, point("grad_a2a", CollectiveOp::AllToAll, sent_pooled, transposed(pooled), ep)));
  Segment update = make_segment("update", {});
  update.kernels_by_expert_rank = backward;
  add(block.backward, std::move(update));
  block.sparse_weights_B_by_expert_rank = weights_B;
  block.sparse_optimizer_B_by_expert_rank = optimizer_B;
  block.saved_activation_B.fill(kept);
  block.output_B = b * pooled_dims * out_B;
  return block;
}

}  // namespace clearfog::workload
