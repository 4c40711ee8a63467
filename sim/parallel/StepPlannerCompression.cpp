// Gradient compression in the data-parallel path (docs/grad-compression.md). The buckets are the
// DDP buckets (GradientBucketPacker, the same rule as syncSGD's); the method of
// training.grad_compression turns each into rounds of encode kernels and a collective, then decode
// kernels (compression::GradCompressionMethod). Placement:
//  - round 0's encode queues on the compute stream as soon as the last micro-batch's backward has
//    completed the bucket, so it delays the rest of the backward as it does on a GPU; without
//    overlap_grad_reduce it waits for the end of the backward;
//  - each round's collective runs on the communication stream after its encode;
//  - later rounds' encodes and the decode queue on the compute stream after the backward, each
//    after the collective it needs.
// A method with no kernels and one all-reduce of the whole bucket lays out exactly syncSGD's ops.
#include <fmt/format.h>

#include "parallel/StepPlanner.hpp"

namespace clearfog::parallel::detail {

using config::CollectiveOp;
using program::Category;
using program::OpIndex;
using program::Stream;

namespace {

CollectiveOp collective_of(compression::Wire wire) {
  return wire == compression::Wire::AllReduce ? CollectiveOp::AllReduce : CollectiveOp::AllGather;
}

}  // namespace

StepPlanner::CompressionLane& StepPlanner::lane(int rank, bool expert) {
  return lanes_[static_cast<std::size_t>(rank)][expert ? 1 : 0];
}

void StepPlanner::compress_gradient(int rank, const ReadyGradient& g) {
  // Only gradients that are reduced: experts' need more than one replica per expert group.
  if (g.expert && dp_ / ep_ <= 1) return;
  auto& l = lane(rank, g.expert);
  const double elements = g.bytes / element_B_;
  l.open.push_back(compression::GradientTensorShape{elements, g.rows});
  l.last_gradient = g.op;
  if (l.packer.add(GradientTensor{g.name, g.bytes, l.tensors++})) close_bucket(rank, g.expert, g.op);
}

void StepPlanner::close_compressed_buckets(int s) {
  // The last, smaller bucket of each rank of the stage completes with its last gradient.
  for (int d = 0; d < dp_; ++d)
    for (int r : grid_.tensor_group(d, s))
      for (const bool expert : {false, true})
        if (lane(r, expert).packer.finish()) close_bucket(r, expert, lane(r, expert).last_gradient);
}

void StepPlanner::close_bucket(int rank, bool expert, OpIndex ready) {
  auto& l = lane(rank, expert);
  compression::BucketInput input{std::move(l.open), gradient_dtype_, expert ? dp_ / ep_ : dp_};
  l.open.clear();
  CompressedBucket bucket{compression_.compress(input, scenario_.training.grad_compression), {ready}, false};
  if (scenario_.training.overlap_grad_reduce) encode_round0(rank, expert, bucket, {ready});
  l.buckets.push_back(std::move(bucket));
}

void StepPlanner::encode_round0(int rank, bool expert, CompressedBucket& bucket, const std::vector<OpIndex>& after) {
  bucket.encoded = true;
  bucket.ready = after;
  const auto& kernels = bucket.work.rounds.front().encode;
  if (kernels.empty()) return;
  const auto& l = lane(rank, expert);
  const std::string name = fmt::format("{}{}.encode.b{}", compression_.name(), expert ? ".experts" : "", l.buckets.size());
  bucket.ready = {step_.plan.ranks[rank].add_compute(Stream::Compute, Category::Backward, name,
                                                     kernels_time(kernels, rank, name), after)};
}

double StepPlanner::kernels_time(const std::vector<kernels::Kernel>& kernels, int rank, const std::string& pass) {
  // The first device's kernels go to the per-op tables; the others are only priced.
  if (rank == 0) return step_.price(cost_model_, kernels, pass, 1);
  double total_s = 0;
  for (const auto& k : kernels) total_s += cost_model_.cost(k).time_s;
  return total_s;
}

void StepPlanner::reduce_compressed(const std::vector<int>& group, bool expert, const std::string& label) {
  const std::string kind = expert ? ".experts" : "";
  const std::size_t buckets = lane(group.front(), expert).buckets.size();
  for (std::size_t b = 0; b < buckets; ++b) {
    // Each member's op that the next step of this bucket waits for.
    std::vector<std::vector<OpIndex>> done(group.size());
    for (std::size_t i = 0; i < group.size(); ++i) {
      auto& bucket = lane(group[i], expert).buckets[b];
      if (!bucket.encoded) encode_round0(group[i], expert, bucket, last_backward_[group[i]]);
      done[i] = bucket.ready;
    }
    const auto& work = lane(group.front(), expert).buckets[b].work;
    for (std::size_t round = 0; round < work.rounds.size(); ++round) {
      const auto& rd = work.rounds[round];
      if (round > 0 && !rd.encode.empty())
        for (std::size_t i = 0; i < group.size(); ++i) {
          const std::string name = fmt::format("{}{}.{}.encode{}.b{}", label, kind, compression_.name(), round, b);
          done[i] = {step_.plan.ranks[group[i]].add_compute(Stream::Compute, Category::Backward, name,
                                                            kernels_time(rd.encode, group[i], name), done[i])};
        }
      const CollectiveOp op = collective_of(rd.wire);
      auto request = collectives_.request(op, group, rd.bytes);
      request.stream = Stream::Comm;
      request.category = Category::DataParallelComm;
      request.name = work.rounds.size() == 1
                         ? fmt::format("{}{}.{}.b{}", label, kind, config::collective_op_name(op), b)
                         : fmt::format("{}{}.{}{}.b{}", label, kind, config::collective_op_name(op), round, b);
      request.deps.assign(group.size(), {});
      for (std::size_t i = 0; i < group.size(); ++i) request.deps[i] = done[i];
      const auto reduced = collectives::append_collective(step_.plan, request, tags_, schedules_);
      for (std::size_t i = 0; i < group.size(); ++i) done[i] = {reduced[i]};
    }
    if (!work.decode.empty())
      for (std::size_t i = 0; i < group.size(); ++i) {
        const std::string name = fmt::format("{}{}.{}.decode.b{}", label, kind, compression_.name(), b);
        done[i] = {step_.plan.ranks[group[i]].add_compute(Stream::Compute, Category::Backward, name,
                                                          kernels_time(work.decode, group[i], name), done[i])};
      }
    if (b + 1 == buckets)
      for (std::size_t i = 0; i < group.size(); ++i) synced_[group[i]].push_back(done[i].front());
  }
}

}  // namespace clearfog::parallel::detail
