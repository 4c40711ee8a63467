// The planner's last phase: data-parallel gradient reductions (DDP buckets; ZeRO reduce-scatters),
// the sum of tied parameters held by two pipeline stages, the optimizer steps (and ZeRO-1/2's
// all-gather of updated parameters), and the figures summed from the priced blocks.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>

#include "parallel/StepPlanner.hpp"

namespace clearfog::parallel::detail {

using config::CollectiveOp;
using program::Category;
using program::OpIndex;
using program::Stream;

namespace {

/// The gradients of `list` that are (or are not) experts'.
std::vector<ReadyGradient> of_kind(const std::vector<ReadyGradient>& list, bool expert) {
  std::vector<ReadyGradient> out;
  for (const auto& g : list)
    if (g.expert == expert) out.push_back(g);
  return out;
}

}  // namespace

std::vector<GradientBucket> StepPlanner::buckets_of(const std::vector<ReadyGradient>& list) const {
  // ZeRO-3 as FSDP runs it: each unit's flat gradient is reduce-scattered as one bucket.
  if (gather_parameters_) {
    std::vector<GradientBucket> units;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i == 0 || list[i].unit != list[i - 1].unit) units.push_back(GradientBucket{0, 0, 0, list[i].name});
      auto& b = units.back();
      b.bytes += list[i].bytes;
      b.ready_slot = static_cast<int>(i);
      ++b.tensors;
    }
    return units;
  }
  // DDP: tensors packed into buckets of at least bucket_size, in the order they become ready.
  std::vector<GradientTensor> tensors;
  for (std::size_t i = 0; i < list.size(); ++i)
    tensors.push_back(GradientTensor{list[i].name, list[i].bytes, static_cast<int>(i)});
  return make_gradient_buckets(tensors, scenario_.training.bucket_size_B);
}

std::vector<std::pair<std::vector<int>, bool>> StepPlanner::reduction_groups(int s, int t) const {
  // Dense gradients over the whole data group, experts' over each expert-data group (the replicas
  // holding the same experts); a group of one device reduces nothing.
  std::vector<std::pair<std::vector<int>, bool>> groups;
  if (dp_ > 1) groups.emplace_back(grid_.data_group(s, t), false);
  if (dp_ / ep_ > 1 && has_experts_)
    for (int j = 0; j < ep_; ++j) groups.emplace_back(grid_.expert_data_group(j, s, t, ep_), true);
  return groups;
}

void StepPlanner::reduce_gradients(const std::vector<int>& group, const std::vector<std::vector<ReadyGradient>>& lists,
                                   bool expert, const std::string& label) {
  // Bucketed like DDP, on the communication stream; without overlap every bucket waits for the
  // member's last backward op.
  if (compressing()) {
    reduce_compressed(group, expert, label);
    return;
  }
  const CollectiveOp op = scenario_.parallelism.zero_stage >= 1 ? CollectiveOp::ReduceScatter : CollectiveOp::AllReduce;
  std::vector<std::vector<ReadyGradient>> member_lists;
  for (int r : group) member_lists.push_back(of_kind(lists[r], expert));
  const auto buckets = buckets_of(member_lists.front());
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    std::vector<std::vector<OpIndex>> deps(group.size());
    const auto slot = static_cast<std::size_t>(buckets[b].ready_slot);
    for (std::size_t i = 0; i < group.size(); ++i)
      deps[i] = scenario_.training.overlap_grad_reduce ? std::vector<OpIndex>{member_lists[i][slot].op}
                                                       : last_backward_[group[i]];
    const auto reduced =
        data_collective(op, group, buckets[b].bytes, std::move(deps),
                        fmt::format("{}{}.{}.b{}", label, expert ? ".experts" : "", config::collective_op_name(op), b));
    if (b + 1 == buckets.size())
      for (std::size_t i = 0; i < group.size(); ++i) synced_[group[i]].push_back(reduced[i]);
  }
}

std::vector<std::vector<int>> StepPlanner::shard_groups(const std::vector<int>& group) const {
  // Hybrid sharding: consecutive data indices form a shard group (a node, where dp is the fastest
  // axis after tp), as FSDP's HYBRID_SHARD puts each node's ranks in one.
  const auto g = static_cast<std::size_t>(std::min<int>(shard_, static_cast<int>(group.size())));
  std::vector<std::vector<int>> out;
  for (std::size_t k = 0; k < group.size(); k += g) out.emplace_back(group.begin() + k, group.begin() + k + g);
  return out;
}

std::vector<OpIndex> StepPlanner::data_collective(CollectiveOp op, const std::vector<int>& group, double bytes,
                                                  std::vector<std::vector<OpIndex>> deps, const std::string& name) {
  // Over each shard group; under hybrid sharding a reduce-scatter's shards are then all-reduced
  // over the replicas holding the same shard (the members at the same place in every group).
  const auto g = static_cast<std::size_t>(std::min<int>(shard_, static_cast<int>(group.size())));
  std::vector<OpIndex> done(group.size());
  const auto append = [&](CollectiveOp o, const std::vector<std::size_t>& at, double b, const std::string& n) {
    std::vector<int> members;
    for (const auto i : at) members.push_back(group[i]);
    auto request = collectives_.request(o, members, b);
    request.stream = Stream::Comm;
    request.category = Category::DataParallelComm;
    request.name = n;
    request.deps.clear();
    for (const auto i : at) request.deps.push_back(deps[i]);
    const auto ops = collectives::append_collective(step_.plan, request, tags_, schedules_);
    for (std::size_t k = 0; k < at.size(); ++k) done[at[k]] = ops[k];
  };
  for (std::size_t first = 0; first < group.size(); first += g) {
    std::vector<std::size_t> at(g);
    std::iota(at.begin(), at.end(), first);
    append(op, at, bytes, g < group.size() ? fmt::format("{}.g{}", name, first / g) : name);
  }
  if (g == group.size() || op != CollectiveOp::ReduceScatter) return done;
  for (std::size_t i = 0; i < group.size(); ++i) deps[i] = {done[i]};
  for (std::size_t j = 0; j < g; ++j) {
    std::vector<std::size_t> at;
    for (std::size_t i = j; i < group.size(); i += g) at.push_back(i);
    append(CollectiveOp::AllReduce, at, bytes / static_cast<double>(g), fmt::format("{}.replicas{}", name, j));
  }
  return done;
}

void StepPlanner::reduce_pass_gradients(int s, const std::string& label) {
  for (int t = 0; t < tp_; ++t)
    for (const auto& [group, expert] : reduction_groups(s, t))
      reduce_gradients(group, pass_ready_, expert, fmt::format("{}.t{}", label, t));
  for (int d = 0; d < dp_; ++d)
    for (int t = 0; t < tp_; ++t) pass_ready_[grid_.rank(d, s, t)].clear();
}

void StepPlanner::reduce_data_groups() {
  // ZeRO 0/1: one reduction (all-reduce or reduce-scatter) of the accumulated gradients per (stage,
  // tensor rank) data group, as the last micro-batch's backward produces them.
  for (int s = 0; s < pp_; ++s)
    for (int t = 0; t < tp_; ++t)
      if (!reduce_every_pass_)
        for (const auto& [group, expert] : reduction_groups(s, t))
          reduce_gradients(group, ready_, expert, fmt::format("s{}.t{}", s, t));
  const auto first = of_kind(ready_[grid_.data_group(0, 0).front()], false);
  step_.buckets = dp_ > 1 ? buckets_of(first) : std::vector<GradientBucket>{};
  for (const auto& g : ready_[grid_.data_group(0, 0).front()]) step_.gradient_bytes += g.bytes;
  for (int r = 0; r < grid_.size(); ++r)
    synced_[r].insert(synced_[r].begin(), last_backward_[r].begin(), last_backward_[r].end());
}

void StepPlanner::sum_tied_copies() {
  // Megatron ties the input embedding (first stage) to the logits weight (last stage): after the
  // data-parallel reduction the two copies' gradients are summed, per tensor rank, in the type
  // the gradients are kept in; with sharded gradients (ZeRO-2/3) only the rank's 1/dp share exists
  // and is summed.
  const bool sharded = scenario_.parallelism.zero_stage >= 2 && dp_ > 1;
  for (const auto& tied : tied_) {
    const double bytes = tied.elements * gradient_B_ / (sharded ? shard_ : 1);
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        const std::vector<int> pair = {grid_.rank(d, tied.origin_stage, t), grid_.rank(d, tied.copy_stage, t)};
        // The copy's stage drains first and then waits for the origin's: an empty handshake takes
        // that wait, so it is reported as pipeline drain, not as communication.
        const std::uint64_t tag = tags_.allocate(2);
        std::array<OpIndex, 2> ready_to_sum{};
        for (std::size_t i = 0; i < pair.size(); ++i)
          ready_to_sum[i] = step_.plan.ranks[pair[i]].add_exchange(
              Stream::Comm, Category::PipelineComm, fmt::format("d{}.t{}.{}_grad.wait", d, t, tied.name),
              {program::Transfer{pair[1 - i], 0, tag + i}}, {program::Transfer{pair[1 - i], 0, tag + 1 - i}},
              synced_[pair[i]]);
        auto request = collectives_.request(CollectiveOp::AllReduce, pair, bytes);
        request.stream = Stream::Comm;
        request.category = Category::TiedGradientComm;
        request.name = fmt::format("d{}.t{}.{}_grad.allreduce", d, t, tied.name);
        request.deps = {{ready_to_sum[0]}, {ready_to_sum[1]}};
        const auto done = collectives::append_collective(step_.plan, request, tags_, schedules_);
        for (std::size_t i = 0; i < pair.size(); ++i) synced_[pair[i]].push_back(done[i]);
      }
    }
  }
}

std::size_t StepPlanner::optimizer_launches(int stage) const {
  // apex / PyTorch multi_tensor_apply: a launch covers at most 36 tensors (Adam's four lists) and
  // 320 blocks of 65536 elements each (apex csrc/multi_tensor_apply.cuh, FusedAdam's chunk size).
  constexpr double kTensorsPerLaunch = 36, kElementsPerLaunch = 320.0 * 65536;
  const double tensors = static_cast<double>(stage_tensors_[static_cast<std::size_t>(stage)]);
  const double elements = stage_parameters_[static_cast<std::size_t>(stage)];
  return static_cast<std::size_t>(std::max({1.0, std::ceil(tensors / kTensorsPerLaunch), std::ceil(elements / kElementsPerLaunch)}));
}

void StepPlanner::optimizer_steps() {
  // The optimizer step, then (ZeRO-1/2) the all-gather of the updated parameter shards; ZeRO-3
  // leaves them sharded until the next step's gathers.
  const int zero = scenario_.parallelism.zero_stage;
  const bool gather_updated = zero >= 1 && zero <= 2 && !gather_ahead_;  // else issue_parameter_gathers()
  for (int s = 0; s < pp_; ++s) {
    for (int t = 0; t < tp_; ++t) {
      std::map<int, OpIndex> opt;  // rank -> its optimizer op
      for (int d = 0; d < dp_; ++d) {
        const int r = grid_.rank(d, s, t);
        const double optimizer_s =
            scenario_.platform.kind_of_device(r) == 1 ? mixed_optimizer_s_[s] : optimizer_s_[s];
        std::vector<OpIndex> after = synced_[r];
        // fp16 loss scaling: the host reads the overflow flag of the reduced gradients
        // (found_inf.item()) before it launches the update.
        if (scenario_.training.precision == DType::fp16 && scenario_.optimizer_passes().fp16_unscale)
          host_->wait_for(r, after);
        if (const auto launched = host_->launch(r, Category::Optimizer, optimizer_launches(s), optimizer_s))
          after.push_back(*launched);
        opt[r] = step_.plan.ranks[r].add_compute(Stream::Compute, Category::Optimizer, "optimizer", optimizer_s, after);
        // Once per iteration the host loads the next batch and logs (FrameworkProfile::host_per_iteration_s).
        if (const double host_s = scenario_.framework.host_per_iteration_s; host_s > 0)
          step_.plan.ranks[r].add_compute(Stream::Compute, Category::Optimizer, "host.iteration", host_s, {opt[r]});
      }
      if (!gather_updated) continue;
      for (const auto& [group, expert] : reduction_groups(s, t)) {
        const auto buckets = buckets_of(of_kind(ready_[group.front()], expert));
        for (std::size_t b = 0; b < buckets.size(); ++b) {
          std::vector<std::vector<OpIndex>> deps;
          for (const int r : group) deps.push_back({opt[r]});
          // The updated parameters in the training precision (the buckets count gradient bytes).
          data_collective(CollectiveOp::AllGather, group, buckets[b].bytes * element_B_ / gradient_B_, std::move(deps),
                          fmt::format("s{}.t{}{}.allgather.b{}", s, t, expert ? ".experts" : "", b));
        }
      }
    }
  }
}

void StepPlanner::issue_parameter_gathers() {
  // The previous step's update, all-gathered behind this step's forward (steady state). The buckets
  // are the gradient buckets (the same tensors in the order backward makes them ready, the same
  // cap), issued in forward order: the last bucket holds the first layers.
  ahead_.assign(static_cast<std::size_t>(grid_.size()),
                std::vector<std::optional<OpIndex>>(model_.blocks.size()));
  for (int s = 0; s < pp_; ++s)
    for (int t = 0; t < tp_; ++t)
      for (const auto& [group, expert] : reduction_groups(s, t)) {
        std::vector<GradientTensor> tensors;
        std::vector<std::size_t> block_of;
        for (std::size_t b = model_.blocks.size(); b-- > 0;) {
          const auto& holders = holders_of_block(b);
          if (std::find(holders.begin(), holders.end(), s) == holders.end()) continue;
          for (const auto& p : own_params_[b]) {
            if (p.expert != expert) continue;
            tensors.push_back({model_.blocks[b].name + "." + p.name, p.elements * gradient_B_,
                               static_cast<int>(tensors.size())});
            block_of.push_back(b);
          }
        }
        const auto buckets = make_gradient_buckets(tensors, scenario_.training.bucket_size_B);
        for (std::size_t i = buckets.size(); i-- > 0;) {
          const auto ops = data_collective(CollectiveOp::AllGather, group, buckets[i].bytes * element_B_ / gradient_B_,
                                           std::vector<std::vector<OpIndex>>(group.size()),
                                           fmt::format("s{}.t{}{}.param_gather.b{}", s, t, expert ? ".experts" : "", i));
          const auto last = static_cast<std::size_t>(buckets[i].ready_slot);
          for (std::size_t k = last + 1 - buckets[i].tensors; k <= last; ++k)
            for (std::size_t j = 0; j < group.size(); ++j)
              ahead_[static_cast<std::size_t>(group[j])][block_of[k]] = ops[j];  // of two buckets, the later
        }
      }
}

void StepPlanner::await_parameter_gathers(std::size_t first, std::size_t end) {
  for (int d = 0; d < dp_; ++d)
    for (const int r : members_[d])
      for (std::size_t b = first; b < end; ++b)
        if (auto& gathered = ahead_[static_cast<std::size_t>(r)][b]) {
          gathers_->expect(r, *gathered);
          gathered.reset();  // the first forward waits; the parameters stay gathered after it
        }
}

void StepPlanner::sum_figures() {
  // Per device and micro-batch, then times the devices that run each block (its stage's tp x dp)
  // and the micro-batches: every matrix product of a block is split over its tensor group.
  const auto recompute = scenario_.training.recompute;
  double model = 0, hardware = 0, recomputable = 0;
  for (const auto& block : model_.blocks) {
    const double forward = workload::model_flops(block.forward), backward = workload::model_flops(block.backward);
    double again = 0;
    if (recompute == config::Recompute::Full && block.checkpointable)
      again = workload::matmul_flops(block.forward);
    else if (config::partial_recompute(recompute))
      again = workload::matmul_flops(block.partial_recompute[workload::policy_index(recompute)]);
    model += forward + backward;
    hardware += workload::matmul_flops(block.forward) + workload::matmul_flops(block.backward) + again;
    if (block.checkpointable) recomputable += forward;
  }
  const double runs = static_cast<double>(tp_) * dp_ * m_;
  step_.model_flops = model * runs;
  step_.hardware_flops = hardware * runs;
  step_.megatron_flops = (model + recomputable) * runs;
  step_.parameters = model_.parameters();
  step_.expert_load = model_.expert_load;
  step_.samples = scenario_.training.global_batch;
  step_.tokens_per_sample = model_.tokens_per_sample;
  step_.sample_unit = model_.sample_unit;
  for (const auto& block : model_.blocks) step_.block_names.push_back(block.name);
  step_.chunk_of_block = chunk_of_block_;
}

}  // namespace clearfog::parallel::detail
