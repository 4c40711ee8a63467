#include "parallel/StepPlanner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/Errors.hpp"
#include "parallel/GridSymmetries.hpp"
#include "workload/TransformerModel.hpp"
#include "workload/WorkloadType.hpp"

namespace clearfog::parallel {

using config::CollectiveOp;
using program::Category;
using program::OpIndex;
using program::Stream;

namespace {

}  // namespace

std::vector<BlockRange> scenario_chunks(const config::ScenarioSpec& scenario, const workload::ModelDescription& model,
                                        const std::vector<double>& block_time_s) {
  const auto& par = scenario.parallelism;
  return partition_blocks(model, par.pp * par.virtual_stages, partition_of(scenario), par.layer_split, block_time_s);
}

const schedule::PipelineScheduleType& scenario_schedule(const config::ScenarioSpec& scenario) {
  const auto& par = scenario.parallelism;
  return schedule::pipeline_schedule(par.pp == 1 ? "1f1b" : par.schedule);
}

schedule::PipelineShape scenario_pipeline_shape(const config::ScenarioSpec& scenario) {
  const auto& par = scenario.parallelism;
  return {par.pp, scenario.micro_batches_per_replica(), par.pp == 1 ? 1 : par.virtual_stages};
}

StepPlan plan_step(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
                   const GroupCollectives& collectives, const PlanOptions& options) {
  return detail::StepPlanner(scenario, costs, collectives, options).plan();
}

namespace detail {

StepPlanner::StepPlanner(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
                         const GroupCollectives& collectives, const PlanOptions& options)
    : scenario_(scenario),
      collectives_(collectives),
      options_(options),
      stack_costs_(costs, scenario.framework.kernel_time_factor),
      model_(workload::describe(scenario)),
      costs_(model_, stack_costs_),
      cost_model_(stack_costs_),
      tp_(scenario.parallelism.tp),
      pp_(scenario.parallelism.pp),
      dp_(scenario.parallelism.dp),
      ep_(scenario.parallelism.ep),
      v_(scenario.parallelism.virtual_stages),
      chunks_(pp_ * v_),
      m_(scenario.micro_batches_per_replica()),
      element_B_(dtype_bytes(scenario.training.precision)),
      grid_(scenario.parallelism),
      schedule_(scenario_schedule(scenario)),
      shape_(scenario_pipeline_shape(scenario)),
      compression_(compression::grad_compression(scenario.training.grad_compression.method)) {
  if (schedule_.model_chunks(shape_) != chunks_ || schedule_.chunks_per_device(shape_) != v_)
    throw Error(fmt::format("the step planner holds each model chunk once, pp x virtual_stages of them; the {} "
                            "schedule holds {} per device in {} model chunks",
                            schedule_.name(), schedule_.chunks_per_device(shape_), schedule_.model_chunks(shape_)));
}

StepPlan StepPlanner::plan() {
  assign_blocks();
  price_stages();
  step_.tp = tp_;
  step_.pp = pp_;
  step_.virtual_stages = v_;
  step_.micro_batches = m_;
  step_.ideal_bubble = pp_ > 1 ? schedule::ideal_bubble_fraction(schedule_, shape_, ideal_pass_times()) : 0.0;
  step_.p2p_bytes = pp_ > 1 ? p2p_bytes(0) : 0.0;
  step_.plan.ranks.resize(static_cast<std::size_t>(std::max(grid_.size(), collectives_.endpoints)));
  step_.plan.compute_slowdown_under_comm =
      scenario_.platform.collectives.compute_slowdown(scenario_.platform.accelerator.compute_units);
  step_.stage_of_rank.assign(static_cast<std::size_t>(grid_.size()), 0);
  // Point-to-point tags: one per (direction, source chunk, micro-batch, replica, tensor rank).
  p2p_base_ = tags_.allocate(2ull * static_cast<std::uint64_t>(chunks_) * m_ * dp_ * tp_);
  // ZeRO-2/3 keep only a shard of the accumulated gradients: every micro-batch's backward pass
  // reduce-scatters its own. ZeRO-3 also shards the parameters and gathers them unit by unit.
  reduce_every_pass_ = scenario_.parallelism.zero_stage >= 2 && dp_ > 1;
  gather_parameters_ = scenario_.parallelism.zero_stage >= 3 && dp_ > 1;
  gathers_.emplace(step_.plan, tags_, collectives_);
  const auto ranks = static_cast<std::size_t>(grid_.size());
  ready_.assign(ranks, {});
  pass_ready_.assign(ranks, {});
  last_backward_.assign(ranks, {});
  synced_.assign(ranks, {});
  compressing_ = compression_.name() != "none" && dp_ > 1;
  if (compressing_ && scenario_.parallelism.zero_stage >= 1)
    throw Error(fmt::format("gradient compression ({}) is modelled with zero_stage 0 only, got {}", compression_.name(),
                            scenario_.parallelism.zero_stage));
  lanes_.clear();
  if (compressing_) {
    const CompressionLane empty{GradientBucketPacker(scenario_.training.bucket_size_B), {}, 0, 0, {}};
    lanes_.assign(ranks, {empty, empty});  // dense, experts
  }
  // Stage by stage, pass by pass in schedule order, and replica by replica inside a pass, so that
  // the collectives over a data group (ZeRO) find every member's ops already laid out. Each rank's
  // ops still follow its schedule; point-to-point messages match by tag, whatever the order.
  for (int s = 0; s < pp_; ++s) lay_out_stage(s);
  reduce_data_groups();
  sum_tied_copies();
  optimizer_steps();
  sum_figures();
  step_.plan.symmetries = grid_symmetries(grid_, scenario_.parallelism, step_.plan.rank_count());  // engine hint
  return std::move(step_);
}

// ---- Phase 1: blocks on chunks, parameters, prices --------------------------------------------

void StepPlanner::assign_blocks() {
  chunk_blocks_ = scenario_chunks(scenario_, model_, costs_.block_times());
  chunk_of_block_.assign(model_.blocks.size(), 0);
  for (int k = 0; k < chunks_; ++k)
    for (std::size_t b = chunk_blocks_[k].begin; b < chunk_blocks_[k].end; ++b) chunk_of_block_[b] = k;
  // A tied tensor on the stage of its origin is the origin itself (its gradient accumulates in
  // place); on another stage it is a copy of its own, summed with the origin after the reduction.
  own_params_.assign(model_.blocks.size(), {});
  for (std::size_t b = 0; b < model_.blocks.size(); ++b) {
    const int stage = stage_of_chunk(chunk_of_block_[b]);
    for (const auto& p : model_.blocks[b].params) {
      if (!p.tied_to.empty()) {
        const auto dot = p.tied_to.find('.');
        const std::size_t origin = model_.block_index(p.tied_to.substr(0, dot));
        const int origin_stage = stage_of_chunk(chunk_of_block_[origin]);
        if (origin_stage == stage) continue;
        tied_.push_back(TiedCopy{origin_stage, stage, p.elements, model_.blocks[origin].name});
      }
      own_params_[b].push_back(p);
      has_experts_ = has_experts_ || p.expert;
    }
  }
}

void StepPlanner::price_stages() {
  const auto& training = scenario_.training;
  const bool accumulate = !training.grad_accumulation_fusion && m_ > 1;
  accumulate_s_.assign(model_.blocks.size(), 0.0);
  stage_parameters_.assign(static_cast<std::size_t>(pp_), 0.0);
  std::vector<double> stage_fwd(pp_, 0), stage_bwd(pp_, 0), stage_rec(pp_, 0), stage_wgt(pp_, 0);
  std::vector<std::vector<int>> type_count(pp_, std::vector<int>(costs_.type_count(), 0));
  // Per micro-batch on average: the first micro-batch writes its gradients, the others accumulate.
  const double mean_accumulate = m_ > 1 ? (m_ - 1.0) / m_ : 0.0;
  const bool full = training.recompute == config::Recompute::Full;
  const bool selective = training.recompute == config::Recompute::Selective;
  for (std::size_t b = 0; b < model_.blocks.size(); ++b) {
    const int s = stage_of_chunk(chunk_of_block_[b]);
    const auto& block = model_.blocks[b];
    const auto& price = costs_.of(b);
    if (accumulate) accumulate_s_[b] = costs_.accumulation_s(b, own_params_[b], training.precision);
    // Parameters the optimizer updates on a device of the stage: dense ones sharded over the data
    // group by ZeRO, experts' over the expert-data group.
    const bool zero = scenario_.parallelism.zero_stage >= 1;
    for (const auto& p : own_params_[b])
      stage_parameters_[s] += p.elements / (!zero ? 1.0 : p.expert ? static_cast<double>(dp_ / ep_) : dp_);
    const double recompute = full && block.checkpointable ? price.forward_s() : selective ? price.selective_s : 0.0;
    stage_fwd[s] += price.forward_s();
    stage_bwd[s] += price.backward_s() + recompute + mean_accumulate * accumulate_s_[b];
    stage_rec[s] += recompute;
    for (const auto& seg : price.backward) stage_wgt[s] += seg.weight_s;
    stage_wgt[s] += mean_accumulate * accumulate_s_[b];
    ++type_count[s][costs_.type_of(b)];
  }
  int busiest = 0;
  for (int s = 0; s < pp_; ++s)
    if (stage_fwd[s] + stage_bwd[s] > stage_fwd[busiest] + stage_bwd[busiest]) busiest = s;
  step_.forward_s = stage_fwd[busiest];
  step_.backward_s = stage_bwd[busiest];
  step_.recompute_s = stage_rec[busiest];
  weight_s_ = stage_wgt[busiest];
  std::vector<int> runs_of_type(costs_.type_count(), 0);
  for (std::size_t t = 0; t < runs_of_type.size(); ++t)
    for (int s = 0; s < pp_; ++s) runs_of_type[t] = std::max(runs_of_type[t], type_count[s][t]);
  step_.kernels = costs_.table(runs_of_type, m_, training.recompute);

  // The optimizer step of each stage on its (ZeRO-sharded) parameters; the update runs in fp32
  // where the chip has fp32 arithmetic (it is memory-bound either way).
  const auto& accelerator = scenario_.platform.accelerator;
  const DType update_dtype = accelerator.supports(DType::fp32) ? DType::fp32 : training.precision;
  const bool adam = training.optimizer == config::Optimizer::Adam;
  optimizer_s_.assign(static_cast<std::size_t>(pp_), 0.0);
  int slowest = 0;
  for (int s = 0; s < pp_; ++s) {
    const auto kernel =
        workload::TransformerModel::optimizer_step(stage_parameters_[s], adam, training.precision, update_dtype,
                                                   scenario_.framework.optimizer);
    optimizer_s_[s] = cost_model_.cost(kernel).time_s;
    if (optimizer_s_[s] > optimizer_s_[slowest]) slowest = s;
  }
  step_.optimizer_s = optimizer_s_[slowest];
  step_.price(cost_model_,
              {workload::TransformerModel::optimizer_step(stage_parameters_[slowest], adam, training.precision,
                                                          update_dtype, scenario_.framework.optimizer)},
              "optimizer", 1);
}

schedule::PassTimes StepPlanner::ideal_pass_times() const {
  // One model chunk's passes on the busiest stage, communication left out.
  const double chunks = schedule_.chunks_per_device(shape_);
  return {step_.forward_s / chunks, step_.backward_s / chunks, weight_s_ / chunks, 0.0};
}

// ---- Phase 2: passes ---------------------------------------------------------------------------

void StepPlanner::lay_out_stage(int s) {
  members_.assign(static_cast<std::size_t>(dp_), {});
  last_.assign(static_cast<std::size_t>(dp_), {});
  for (int d = 0; d < dp_; ++d) {
    members_[d] = grid_.tensor_group(d, s);
    for (int r : members_[d]) step_.stage_of_rank[r] = s;
  }
  using Pass = schedule::PipelineStep::Pass;
  for (const auto& st : schedule::pipeline_order(schedule_, shape_, s)) {
    const int k = schedule_.place(shape_, s, st.chunk).model_chunk;
    for (auto& l : last_) l.clear();
    switch (st.pass) {
      case Pass::Forward: forward_chunk(s, k, st.micro_batch); break;
      case Pass::Backward: backward_chunk(s, k, st.micro_batch, BackwardPart::Whole); break;
      case Pass::BackwardInput: backward_chunk(s, k, st.micro_batch, BackwardPart::Input); break;
      case Pass::BackwardWeight: weight_chunk(s, k, st.micro_batch); break;
    }
    // The gradients of this chunk are complete after a whole backward or its W.
    if (st.pass != Pass::Backward && st.pass != Pass::BackwardWeight) continue;
    for (int d = 0; d < dp_; ++d)
      for (std::size_t i = 0; i < members_[d].size(); ++i) last_backward_[members_[d][i]] = {last_[d][i]};
    if (reduce_every_pass_) reduce_pass_gradients(s, fmt::format("mb{}.c{}", st.micro_batch, k));
  }
  if (compressing()) close_compressed_buckets(s);
}

std::vector<double> StepPlanner::replica_times(const PricedSegment& segment, BackwardPart part) const {
  const auto time = [&](double whole, double weight) {
    return part == BackwardPart::Whole ? whole : part == BackwardPart::Input ? whole - weight : weight;
  };
  std::vector<double> t(static_cast<std::size_t>(dp_), time(segment.time_s, segment.weight_s));
  if (!segment.time_by_expert_rank.empty())
    for (int d = 0; d < dp_; ++d)
      t[d] = time(segment.time_by_expert_rank[d % ep_], segment.weight_by_expert_rank[d % ep_]);
  return t;
}

void StepPlanner::add_times(std::vector<double>& into, const std::vector<double>& more, double scale) {
  for (std::size_t d = 0; d < into.size(); ++d) into[d] += scale * more[d];
}

std::vector<double> StepPlanner::pass_times(std::size_t block, bool forward, BackwardPart part) const {
  std::vector<double> t(static_cast<std::size_t>(dp_), 0.0);
  const auto& price = costs_.of(block);
  for (const auto& seg : forward ? price.forward : price.backward) add_times(t, replica_times(seg, part));
  return t;
}

void StepPlanner::forward_chunk(int s, int k, int mb) {
  const std::string prefix = fmt::format("mb{}.c{}", mb, k);
  if (k > 0)
    for (int d = 0; d < dp_; ++d) receive(s, d, 0, k - 1, mb, prefix + ".recv_act");
  host_wait(prefix + ".host");
  const auto& range = chunk_blocks_[k];
  for (std::size_t b = range.begin; b < range.end;) {
    if (options_.fuse_chunk_layers && model_.blocks[b].checkpointable) {
      std::size_t e = b;
      double params = 0;
      std::vector<double> seconds(static_cast<std::size_t>(dp_), 0.0);
      std::vector<workload::CommPoint> points;
      for (; e < range.end && model_.blocks[e].checkpointable; ++e) {
        for (const auto& p : own_params_[e]) params += p.elements;
        add_times(seconds, pass_times(e, true));
        for (const auto& seg : costs_.of(e).forward) points.push_back(seg.comm);
      }
      unit(s, params, prefix + ".layers.fwd", [&] {
        compute(Category::Forward, prefix + ".layers.fwd", seconds);
        collectives(points, prefix + ".tp.fwd");
      });
      b = e;
      continue;
    }
    const std::string name = fmt::format("mb{}.{}.fwd", mb, model_.blocks[b].name);
    double params = 0;
    for (const auto& p : own_params_[b]) params += p.elements;
    unit(s, params, name, [&] { run_segments(costs_.of(b).forward, Category::Forward, name, 0.0); });
    ++b;
  }
  if (k < chunks_ - 1)
    for (int d = 0; d < dp_; ++d) send(s, d, 0, k, k + 1, mb, prefix + ".send_act");
}

void StepPlanner::backward_chunk(int s, int k, int mb, BackwardPart part) {
  const std::string prefix = fmt::format("mb{}.c{}", mb, k);
  const auto recompute = scenario_.training.recompute;
  // Unfused accumulation: every micro-batch after the first adds its gradients to the sum (in W
  // where the backward is split).
  const double accumulating = mb > 0 && part == BackwardPart::Whole ? 1.0 : 0.0;
  const bool gradients_done = part == BackwardPart::Whole;
  const std::string bwd = part == BackwardPart::Whole ? ".bwd" : ".bwd_input";
  if (k < chunks_ - 1)
    for (int d = 0; d < dp_; ++d) receive(s, d, 1, k + 1, mb, prefix + ".recv_grad");
  const auto& range = chunk_blocks_[k];
  const auto zeros = std::vector<double>(static_cast<std::size_t>(dp_), 0.0);
  for (std::size_t end = range.end; end > range.begin;) {
    const std::size_t last = end - 1;
    if (options_.fuse_chunk_layers && model_.blocks[last].checkpointable) {
      std::size_t first = last;
      while (first > range.begin && model_.blocks[first - 1].checkpointable) --first;
      double params = 0, selective_s = 0;
      std::vector<double> forward_s = zeros, backward_s = zeros;
      std::vector<workload::CommPoint> forward_points, backward_points;
      for (std::size_t b = first; b <= last; ++b) {
        for (const auto& p : own_params_[b]) params += p.elements;
        const auto& price = costs_.of(b);
        for (const auto& seg : price.forward) forward_points.push_back(seg.comm);
        for (const auto& seg : price.backward) backward_points.push_back(seg.comm);
        add_times(forward_s, pass_times(b, true));
        add_times(backward_s, pass_times(b, false, part));
        for (auto& t : backward_s) t += accumulating * accumulate_s_[b];
        selective_s += price.selective_s;
      }
      unit(s, params, prefix + ".layers" + bwd, [&] {
        if (recompute == config::Recompute::Full) {
          compute(Category::Recompute, prefix + ".layers.recompute", forward_s);
          collectives(forward_points, prefix + ".tp.recompute");
        } else if (recompute == config::Recompute::Selective && selective_s > 0) {
          compute(Category::Recompute, prefix + ".layers.recompute", std::vector<double>(zeros.size(), selective_s));
        }
        compute(Category::Backward, prefix + ".layers" + bwd, backward_s);
        collectives(backward_points, prefix + ".tp.bwd");
        if (gradients_done)
          for (std::size_t b = last + 1; b-- > first;) record_gradients(b, mb, units_);
      });
      end = first;
      continue;
    }
    const auto& block = model_.blocks[last];
    const auto& price = costs_.of(last);
    const std::string name = fmt::format("mb{}.{}", mb, block.name);
    double params = 0;
    for (const auto& p : own_params_[last]) params += p.elements;
    unit(s, params, name + bwd, [&] {
      if (recompute == config::Recompute::Full && block.checkpointable)
        run_segments(price.forward, Category::Recompute, name + ".re", 0.0);
      else if (recompute == config::Recompute::Selective && price.selective_s > 0)
        compute(Category::Recompute, name + ".re.core", std::vector<double>(zeros.size(), price.selective_s));
      run_segments(price.backward, Category::Backward, name + bwd, accumulating * accumulate_s_[last], part);
      if (gradients_done) record_gradients(last, mb, units_);
    });
    end = last;
  }
  if (k > 0)
    for (int d = 0; d < dp_; ++d) send(s, d, 1, k, k - 1, mb, prefix + ".send_grad");
}

void StepPlanner::weight_chunk(int s, int k, int mb) {
  // The W pass of a split backward: the chunk's weight-gradient kernels and the unfused
  // accumulation, one compute op per block (per fused run of layers), no communication. Under
  // ZeRO-3 the weights are not needed (dW = X^T dY), so nothing is gathered.
  (void)s;
  const std::string prefix = fmt::format("mb{}.c{}", mb, k);
  const double accumulating = mb > 0 ? 1.0 : 0.0;
  const auto& range = chunk_blocks_[k];
  const auto zeros = std::vector<double>(static_cast<std::size_t>(dp_), 0.0);
  for (std::size_t end = range.end; end > range.begin;) {
    std::size_t first = end - 1;
    if (options_.fuse_chunk_layers && model_.blocks[first].checkpointable)
      while (first > range.begin && model_.blocks[first - 1].checkpointable) --first;
    std::vector<double> seconds = zeros;
    for (std::size_t b = first; b < end; ++b) {
      add_times(seconds, pass_times(b, false, BackwardPart::Weight));
      for (auto& t : seconds) t += accumulating * accumulate_s_[b];
    }
    const std::string name =
        end - first > 1 || options_.fuse_chunk_layers ? prefix + ".layers.wgrad"
                                                      : fmt::format("mb{}.{}.wgrad", mb, model_.blocks[first].name);
    compute(Category::Backward, name, seconds);
    for (std::size_t b = end; b-- > first;) record_gradients(b, mb, units_);
    ++units_;
    end = first;
  }
}

void StepPlanner::run_segments(const std::vector<PricedSegment>& segments, Category category,
                               const std::string& prefix, double extra_s, BackwardPart part) {
  // Segments run back to back share one compute op until a collective separates them.
  struct Group {
    std::string name;
    std::vector<double> time_s;
    std::size_t kernels = 0;
    const workload::CommPoint* comm = nullptr;
  };
  const auto zeros = std::vector<double>(static_cast<std::size_t>(dp_), 0.0);
  std::vector<Group> groups(1, Group{"", zeros, 0, nullptr});
  for (const auto& seg : segments) {
    auto& g = groups.back();
    if (g.kernels == 0 && seg.kernels > 0) g.name = seg.name;
    add_times(g.time_s, replica_times(seg, part));
    g.kernels += seg.kernels;
    if (seg.comm.active()) {
      g.comm = &seg.comm;
      groups.push_back(Group{"", zeros, 0, nullptr});
    }
  }
  const auto computing = std::count_if(groups.begin(), groups.end(), [](const Group& g) { return g.kernels > 0; });
  std::size_t last_computing = groups.size();
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (groups[i].kernels > 0) last_computing = i;
  if (last_computing == groups.size() && extra_s > 0) {  // nothing else to carry it
    groups.back().kernels = 1;
    last_computing = groups.size() - 1;
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    auto& g = groups[i];
    if (g.kernels > 0) {
      if (i == last_computing)
        for (auto& t : g.time_s) t += extra_s;
      compute(category, computing > 1 ? prefix + "." + g.name : prefix, g.time_s);
    }
    if (g.comm) collectives({*g.comm}, prefix + "." + g.comm->name);
  }
}

void StepPlanner::compute(Category category, const std::string& name, const std::vector<double>& seconds,
                          bool wait_for_gathers) {
  for (int d = 0; d < dp_; ++d) {
    auto& after = last_[d];
    std::vector<OpIndex> ops(members_[d].size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      std::vector<OpIndex> dep;
      if (!after.empty()) dep.push_back(after[i]);
      const auto gathered = wait_for_gathers ? gathers_->take(members_[d][i]) : std::nullopt;
      if (gathered) dep.push_back(*gathered);
      ops[i] = step_.plan.ranks[members_[d][i]].add_compute(Stream::Compute, category, name, seconds[d], dep);
    }
    after = ops;
  }
}

template <typename Ops>
void StepPlanner::unit(int s, double device_params, const std::string& name, const Ops& ops) {
  // One unit of parameters (a block or a fused run of them) on every replica: under ZeRO-3 each
  // data group first gathers its parameters and the unit's first compute op waits for them.
  if (gather_parameters_)
    for (int t = 0; t < tp_; ++t)
      gathers_->gather(grid_.data_group(s, t), device_params * element_B_, fmt::format("{}.t{}.gather", name, t));
  ops();
  ++units_;
  if (gather_parameters_)
    for (int d = 0; d < dp_; ++d)
      for (std::size_t i = 0; i < members_[d].size(); ++i) gathers_->release(members_[d][i], last_[d][i]);
}

void StepPlanner::record_gradients(std::size_t block, int mb, int unit) {
  // The gradients of each replica's members are ready after its latest op.
  for (int d = 0; d < dp_; ++d) {
    for (std::size_t i = 0; i < members_[d].size(); ++i) {
      for (const auto& p : own_params_[block]) {
        const ReadyGradient g{last_[d][i], p.elements * element_B_, model_.blocks[block].name + "." + p.name, unit,
                              p.expert, p.rows};
        if (mb == m_ - 1) ready_[members_[d][i]].push_back(g);
        if (mb == m_ - 1 && compressing()) compress_gradient(members_[d][i], g);
        if (reduce_every_pass_) pass_ready_[members_[d][i]].push_back(g);
      }
    }
  }
}

}  // namespace detail

}  // namespace clearfog::parallel
