// The communication a pass emits between its kernels: the tensor-parallel and expert-parallel
// collectives of the model description's points, and the pipeline sends and receives between
// stages (docs/step-model.md, docs/moe.md).
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "parallel/StepPlanner.hpp"
#include "workload/ExpertRouting.hpp"

namespace clearfog::parallel::detail {

using config::CollectiveOp;
using program::Category;
using program::OpIndex;
using program::Stream;

namespace {

/// The active points of `points` with equal ops and group merged, their bytes (matrices, per
/// expert rank sizes) summed: a fused chunk runs one collective for all its layers' points.
std::vector<workload::CommPoint> merged_points(const std::vector<workload::CommPoint>& points, int ep) {
  std::vector<workload::CommPoint> merged;
  const auto by_rank = [ep](const workload::CommPoint& p) {
    return p.bytes_by_expert_rank.empty() ? std::vector<double>(static_cast<std::size_t>(ep), p.bytes)
                                          : p.bytes_by_expert_rank;
  };
  for (const auto& p : points) {
    if (!p.active()) continue;
    const auto same = std::find_if(merged.begin(), merged.end(),
                                   [&](const auto& m) { return m.ops == p.ops && m.group == p.group; });
    if (same == merged.end()) {
      merged.push_back(p);
      continue;
    }
    same->bytes += p.bytes;
    same->counts_on_host = same->counts_on_host || p.counts_on_host;
    if (!p.bytes_by_expert_rank.empty() || !same->bytes_by_expert_rank.empty()) {
      auto sum = by_rank(*same);
      const auto more = by_rank(p);
      for (std::size_t j = 0; j < sum.size(); ++j) sum[j] += more[j];
      same->bytes_by_expert_rank = sum;
    }
    if (!p.matrix.empty() && !same->matrix.empty())
      for (std::size_t i = 0; i < p.matrix.size(); ++i)
        for (std::size_t j = 0; j < p.matrix[i].size(); ++j) same->matrix[i][j] += p.matrix[i][j];
  }
  return merged;
}

/// DeepEP's exchange over a group on several nodes: the hierarchical all-to-all, one copy per token
/// and node on the network (a fused chunk's merged point sizes it with its first layer's routing).
/// On one node, or nodes of unequal runs, the direct exchange of the de-duplicated matrix.
void deduplicate(collectives::CollectiveRequest& r, const workload::CommPoint::Deduplication& d) {
  const int p = static_cast<int>(r.ranks.size()), m = r.ranks_per_node;
  if (m <= 0 || m >= p || p % m != 0) return;
  std::vector<std::vector<int>> nodes(static_cast<std::size_t>(p / m));
  for (int pos = 0; pos < p; ++pos)
    nodes[static_cast<std::size_t>(pos / m)].push_back(r.caller_index.empty() ? pos : r.caller_index[static_cast<std::size_t>(pos)]);
  r.algorithm = collectives::collective_algorithm("hierarchical");
  r.network_share = workload::deduplicated_network_share(d.member_share, nodes, d.experts, d.top_k);
}

}  // namespace

void StepPlanner::collectives(const std::vector<workload::CommPoint>& points, const std::string& name) {
  for (const auto& point : merged_points(points, ep_)) {
    for (const CollectiveOp op : point.ops) {
      const std::string label = fmt::format("{}.{}", name, config::collective_op_name(op));
      if (point.group == workload::CommGroup::Tensor)
        tensor_collective(op, point, label);
      else
        expert_collective(op, point, label);
    }
  }
}

bool StepPlanner::record_collective(std::function<void()> call) {
  if (!recording_) return false;
  recording_->push_back({[this, call = std::move(call), stream = collective_stream_] {
                           const auto saved = std::exchange(collective_stream_, stream);
                           call();
                           collective_stream_ = saved;
                         },
                         false});
  return true;
}

void StepPlanner::tensor_collective(CollectiveOp op, const workload::CommPoint& point, const std::string& name) {
  if (tp_ == 1) return;
  if (record_collective([=, this] { tensor_collective(op, point, name); })) return;
  for (int d = 0; d < dp_; ++d) {
    const double bytes = point.bytes_by_expert_rank.empty() ? point.bytes : point.bytes_by_expert_rank[d % ep_];
    auto request = collectives_.request(op, members_[d], bytes);
    request.stream = collective_stream_;
    request.category = Category::TensorParallelComm;
    request.name = name;
    request.deps.assign(members_[d].size(), {});
    for (std::size_t i = 0; i < members_[d].size(); ++i) {
      if (!last_[d].empty()) request.deps[i] = {last_[d][i]};
      launch_collective(members_[d][i], request.deps[i]);
    }
    last_[d] = collectives::append_collective(step_.plan, request, tags_, schedules_);
  }
}

void StepPlanner::expert_collective(CollectiveOp op, const workload::CommPoint& point, const std::string& name) {
  if (ep_ == 1) return;
  if (record_collective([=, this] { expert_collective(op, point, name); })) return;
  // The members at tensor rank t of the ep replicas of each expert group exchange their tokens.
  for (int first = 0; first < dp_; first += ep_) {
    for (int t = 0; t < tp_; ++t) {
      std::vector<int> group;
      for (int j = 0; j < ep_; ++j) group.push_back(members_[first + j][t]);
      double sent = point.bytes;
      if (!point.matrix.empty()) {
        sent = 0;
        for (const auto& row : point.matrix) sent += std::accumulate(row.begin(), row.end(), 0.0);
        sent /= ep_;
      }
      auto request = collectives_.request(op, group, sent);
      request.matrix = point.matrix;
      if (point.dedup) deduplicate(request, *point.dedup);
      request.stream = collective_stream_;
      request.category = Category::ExpertParallelComm;
      request.name = name;
      request.deps.assign(group.size(), {});
      for (int j = 0; j < ep_; ++j) {
        if (!last_[first + j].empty()) request.deps[j] = {last_[first + j][t]};
        // The host reads the sizes the kernels before produced, then launches the exchange.
        if (point.counts_on_host && scenario_.framework.host.moe_dispatch_sync && !request.deps[j].empty())
          host_->wait_for(group[j], request.deps[j]);
        launch_collective(group[j], request.deps[j]);
      }
      const auto done = collectives::append_collective(step_.plan, request, tags_, schedules_);
      for (int j = 0; j < ep_; ++j) {
        last_[first + j].resize(members_[first + j].size());
        last_[first + j][t] = done[j];
      }
    }
  }
}

double StepPlanner::p2p_bytes(int chunk) const {
  const auto& block = model_.blocks[chunk_blocks_[chunk].end - 1];
  // Between stages each tensor rank sends its 1/t of the activation when the sequence is already
  // sharded (sequence parallelism) or with Narayanan et al.'s scatter/gather, which then re-forms
  // the whole tensor with an all-gather over the receiver's tensor group (NVLink); else the whole
  // tensor.
  const bool sharded = tp_ > 1 && (!block.output_replicated || scenario_.parallelism.scatter_gather);
  return block.output_B / (sharded ? tp_ : 1);
}

std::uint64_t StepPlanner::p2p_tag(int direction, int chunk, int mb, int d, int t) const {
  return p2p_base_ + ((((static_cast<std::uint64_t>(direction) * chunks_ + chunk) * m_ + mb) * dp_ + d) * tp_ + t);
}

void StepPlanner::receive(int s, int d, int direction, int from_chunk, int mb, const std::string& name) {
  // Activations (direction 0) come from the previous chunk, gradients (1) from the next; either
  // way the tensor is the boundary between the lower chunk and the one above it.
  const int boundary = direction == 0 ? from_chunk : from_chunk - 1;
  const double bytes = p2p_bytes(boundary);
  last_[d].resize(members_[d].size());
  for (std::size_t i = 0; i < members_[d].size(); ++i) {
    const int t = static_cast<int>(i);
    const int src = grid_.rank(d, stage_of(from_chunk, mb), t);
    const program::Transfer recv{src, bytes, p2p_tag(direction, from_chunk, mb, d, t)};
    // Blocking p2p: receives are posted ahead on the p2p stream (the sender's compute stream waits
    // for its transfer, so the receive must not wait behind compute); the pass waits for its data
    // through the dependency on last_. Otherwise the receive heads the pass on the compute stream.
    const Stream stream =
        scenario_.framework.p2p == config::P2pMode::Blocking ? p2p_stream(mb, Stream::P2p) : Stream::Compute;
    last_[d][i] =
        step_.plan.ranks[members_[d][i]].add_exchange(stream, Category::PipelineComm, name, {}, {recv});
  }
  const auto& block = model_.blocks[chunk_blocks_[boundary].end - 1];
  if (tp_ == 1 || !block.output_replicated || !scenario_.parallelism.scatter_gather) return;
  (void)s;
  auto request = collectives_.request(CollectiveOp::AllGather, members_[d], block.output_B);
  request.stream = Stream::Compute;
  request.category = Category::PipelineComm;
  request.name = name + ".allgather";
  request.deps.assign(members_[d].size(), {});
  for (std::size_t i = 0; i < members_[d].size(); ++i) request.deps[i] = {last_[d][i]};
  last_[d] = collectives::append_collective(step_.plan, request, tags_, schedules_);
}

void StepPlanner::send(int s, int d, int direction, int k, int to_chunk, int mb, const std::string& name) {
  (void)s;
  const double bytes = p2p_bytes(direction == 0 ? k : to_chunk);
  for (std::size_t i = 0; i < members_[d].size(); ++i) {
    const int t = static_cast<int>(i);
    const int dst = grid_.rank(d, stage_of(to_chunk, mb), t);
    const program::Transfer transfer{dst, bytes, p2p_tag(direction, k, mb, d, t)};
    // async: the pipeline's own communicator; async-shared: behind the gradient reductions;
    // blocking (Megatron 2021's torch.cuda.synchronize()): on the compute stream, which waits for it.
    const config::P2pMode mode = scenario_.framework.p2p;
    const Stream stream = mode == config::P2pMode::Async         ? p2p_stream(mb, Stream::P2p)
                          : mode == config::P2pMode::AsyncShared ? p2p_stream(mb, Stream::Comm)
                                                                 : Stream::Compute;
    const OpIndex sent =
        step_.plan.ranks[members_[d][i]].add_exchange(stream, Category::PipelineComm, name, {transfer}, {}, {last_[d][i]});
    // torch.cuda.synchronize() after the exchange blocks the host too, until the transfer is done.
    if (mode == config::P2pMode::Blocking) host_->wait_for(members_[d][i], std::span<const OpIndex>(&sent, 1));
  }
}

Stream StepPlanner::p2p_stream(int mb, Stream forward_stream) const {
  return placement_.direction_of(mb) == 0 ? forward_stream : Stream::P2pReverse;
}

void StepPlanner::launch_collective(int rank, std::vector<OpIndex>& deps) {
  // One NCCL kernel, launched from Python (Megatron's autograd functions, in either pass).
  if (const auto launched = host_->launch(rank, Category::Forward, 1)) deps.push_back(*launched);
}

void StepPlanner::host_wait(const std::string& name) {
  const double host_s = scenario_.framework.host_per_micro_batch_s;
  if (host_s <= 0) return;
  // The host prepares the pass (Python, kernel launches, the data-loader's share): the devices
  // of the stage idle for it, on the compute stream, before any parameter gather is waited for.
  compute(Category::Forward, name, std::vector<double>(static_cast<std::size_t>(dp_), host_s), 0, false);
}

}  // namespace clearfog::parallel::detail
