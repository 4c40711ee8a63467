#include "parallel/StepPlanner.hpp"
#include "parallel/Stragglers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/Errors.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "parallel/GridSymmetries.hpp"
#include "parallel/PlatformInterference.hpp"
#include "workload/OptimizerStep.hpp"
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
  const int chunks = scenario_schedule(scenario).model_chunks(scenario_pipeline_shape(scenario));
  return partition_blocks(model, chunks, partition_of(scenario), par.layer_split, block_time_s);
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
  StepPlan step = detail::StepPlanner(scenario, costs, collectives, options).plan();
  if (scenario.stragglers.any())
    slow_down_compute(step.plan, straggler_factors(scenario.stragglers, scenario.platform.device_count()));
  return step;
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
      chunks_(0),
      m_(scenario.micro_batches_per_replica()),
      shard_(scenario.parallelism.zero_stage >= 1 ? scenario.parallelism.shard_degree() : scenario.parallelism.dp),
      element_B_(dtype_bytes(storage_dtype(scenario.training.precision))),
      gradient_dtype_(scenario.gradient_reduce_dtype()),
      gradient_B_(dtype_bytes(gradient_dtype_)),
      accumulation_(gradient_accumulation(scenario)),
      grid_(scenario.parallelism),
      schedule_(scenario_schedule(scenario)),
      shape_(scenario_pipeline_shape(scenario)),
      placement_(schedule_, shape_),
      compression_(compression::grad_compression(scenario.training.grad_compression.method)) {
  chunks_ = placement_.model_chunks();
}

StepPlan StepPlanner::plan() {
  assign_blocks();
  price_stages();
  if (scenario_.platform.mixed) price_mixed_kind();
  step_.tp = tp_;
  step_.pp = pp_;
  step_.virtual_stages = v_;
  step_.micro_batches = m_;
  step_.ideal_bubble = pp_ > 1 ? schedule::ideal_bubble_fraction(schedule_, shape_, ideal_pass_times()) : 0.0;
  step_.p2p_bytes = pp_ > 1 ? p2p_bytes(0) : 0.0;
  step_.plan.ranks.resize(static_cast<std::size_t>(std::max(grid_.size(), collectives_.endpoints)));
  step_.plan.interference = platform_interference(scenario_.platform);
  step_.stage_of_rank.assign(static_cast<std::size_t>(grid_.size()), 0);
  // Point-to-point tags: one per (direction, source chunk, micro-batch, replica, tensor rank).
  p2p_base_ = tags_.allocate(2ull * static_cast<std::uint64_t>(chunks_) * m_ * dp_ * tp_);
  // ZeRO-2/3 keep only a shard of the accumulated gradients: every micro-batch's backward pass
  // reduce-scatters its own. ZeRO-3 also shards the parameters and gathers them unit by unit;
  // FSDP2 under pipeline parallelism gathers each unit once and reduces the sum once.
  reduce_every_pass_ = scenario_.reduces_every_micro_batch();
  gather_parameters_ = scenario_.parallelism.zero_stage >= 3 && dp_ > 1;
  hold_gathered_ = scenario_.holds_unsharded_parameters();
  gather_ahead_ = scenario_.gathers_parameters_ahead();
  gathered_.assign(model_.blocks.size(), false);
  gathers_.emplace(step_.plan, tags_, schedules_, collectives_);
  // Stragglers rescale compute after planning: no host op is left out for them.
  host_.emplace(scenario_.framework.host, step_.plan, !scenario_.stragglers.any());
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
  if (gather_ahead_) issue_parameter_gathers();
  for (int s = 0; s < pp_; ++s) lay_out_stage(s);
  reduce_data_groups();
  sum_tied_copies();
  optimizer_steps();
  host_->finish();
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
    for (const auto& p : model_.blocks[b].params) {
      if (!p.tied_to.empty()) {
        const std::size_t origin = model_.block_index(p.tied_to.substr(0, p.tied_to.find('.')));
        if (holders_of_block(origin) == holders_of_block(b)) continue;
        add_tied_copy(b, p);
      }
      own_params_[b].push_back(p);
      has_experts_ = has_experts_ || p.expert;
    }
  }
  if (placement_.mirrored()) add_mirror_copies();
}

void StepPlanner::add_tied_copy(std::size_t b, const workload::ParamTensor& p) {
  const std::size_t origin = model_.block_index(p.tied_to.substr(0, p.tied_to.find('.')));
  const auto& from = holders_of_block(origin);
  const auto& to = holders_of_block(b);
  if (from.size() != 1 || to.size() != 1)
    throw Error(fmt::format("tied parameter {}.{} and its origin {} sit on different stages of a schedule that holds "
                            "them twice; tie them on chunks held by the same stages",
                            model_.blocks[b].name, p.name, p.tied_to));
  tied_.push_back(TiedCopy{from[0], to[0], p.elements, model_.blocks[origin].name});
}

void StepPlanner::add_mirror_copies() {
  // DualPipe holds model chunk k on stages k and p-1-k: the two copies' gradients are summed
  // (per tensor rank, after the data-parallel reduction) before both copies take the same step.
  std::vector<double> elements(static_cast<std::size_t>(pp_), 0.0);
  for (std::size_t b = 0; b < model_.blocks.size(); ++b)
    for (const auto& p : own_params_[b]) elements[holders_of_block(b).front()] += p.elements;  // the lower stage
  for (int s = 0; s < pp_ / 2; ++s)
    tied_.push_back(TiedCopy{s, pp_ - 1 - s, elements[s], fmt::format("s{}.mirror", s)});
}

void StepPlanner::price_stages() {
  const auto& training = scenario_.training;
  const bool accumulate = accumulation_.active;
  accumulate_s_.assign(model_.blocks.size(), 0.0);
  stage_parameters_.assign(static_cast<std::size_t>(pp_), 0.0);
  std::vector<double> stage_fwd(pp_, 0), stage_bwd(pp_, 0), stage_rec(pp_, 0), stage_wgt(pp_, 0);
  std::vector<std::vector<int>> type_count(pp_, std::vector<int>(costs_.type_count(), 0));
  stage_tensors_.assign(static_cast<std::size_t>(pp_), 0);
  // Per micro-batch on average: the first micro-batch writes (or casts) its gradients, the others
  // accumulate.
  const double mean_accumulate = accumulation_.mean_share(m_);
  const bool full = training.recompute == config::Recompute::Full;
  const bool partial = config::partial_recompute(training.recompute);
  for (std::size_t b = 0; b < model_.blocks.size(); ++b)
    for (const int s : holders_of_block(b)) {
    const auto& block = model_.blocks[b];
    const auto& price = costs_.of(b);
    if (accumulate) accumulate_s_[b] = costs_.accumulation_s(b, own_params_[b], accumulation_);
    // Parameters the optimizer updates on a device of the stage: dense ones sharded over the data
    // group by ZeRO, experts' over the expert-data group.
    const bool zero = scenario_.parallelism.zero_stage >= 1;
    for (const auto& p : own_params_[b])
      stage_parameters_[s] += p.elements / (!zero ? 1.0 : p.expert ? static_cast<double>(dp_ / ep_) : shard_);
    stage_tensors_[s] += own_params_[b].size();
    const double recompute = full && block.checkpointable ? price.forward_s()
                             : partial ? price.recompute_s[workload::policy_index(training.recompute)]
                                       : 0.0;
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
        workload::optimizer_step(stage_parameters_[s], adam, training.precision, update_dtype,
                                                   scenario_.optimizer_passes());
    optimizer_s_[s] = cost_model_.cost(kernel).time_s;
    if (optimizer_s_[s] > optimizer_s_[slowest]) slowest = s;
  }
  step_.optimizer_s = optimizer_s_[slowest];
  step_.price(cost_model_,
              {workload::optimizer_step(stage_parameters_[slowest], adam, training.precision,
                                                          update_dtype, scenario_.optimizer_passes())},
              "optimizer", 1);
}

void StepPlanner::price_mixed_kind() {
  // The same blocks on the second kind, with the same framework's kernel-time factor; the
  // partition, the kernel table and the figures above stay the first kind's.
  const auto& training = scenario_.training;
  const auto& accelerator = scenario_.platform.mixed->accelerator;
  mixed_kernels_ = std::make_unique<kernels::BlockedGemmModel>(accelerator);
  mixed_stack_ = std::make_unique<kernels::ScaledCostModel>(*mixed_kernels_, scenario_.framework.kernel_time_factor);
  mixed_costs_ = std::make_unique<BlockCosts>(model_, *mixed_stack_);
  counterpart_.clear();
  for (std::size_t b = 0; b < model_.blocks.size(); ++b)
    for (const bool forward : {true, false}) {
      const auto& mine = forward ? costs_.of(b).forward : costs_.of(b).backward;
      const auto& theirs = forward ? mixed_costs_->of(b).forward : mixed_costs_->of(b).backward;
      for (std::size_t i = 0; i < mine.size(); ++i) counterpart_[&mine[i]] = &theirs[i];
    }
  mixed_accumulate_s_.assign(model_.blocks.size(), 0.0);
  if (accumulation_.active)
    for (std::size_t b = 0; b < model_.blocks.size(); ++b)
      mixed_accumulate_s_[b] = mixed_costs_->accumulation_s(b, own_params_[b], accumulation_);
  const DType update_dtype = accelerator.supports(DType::fp32) ? DType::fp32 : training.precision;
  mixed_optimizer_s_.assign(static_cast<std::size_t>(pp_), 0.0);
  for (int s = 0; s < pp_; ++s)
    mixed_optimizer_s_[s] = mixed_stack_
                                ->cost(workload::optimizer_step(
                                    stage_parameters_[s], training.optimizer == config::Optimizer::Adam,
                                    training.precision, update_dtype, scenario_.optimizer_passes()))
                                .time_s;
}

schedule::PassTimes StepPlanner::ideal_pass_times() const {
  // One model chunk's passes on the busiest stage, communication left out.
  const double chunks = schedule_.chunks_per_device(shape_);
  return {step_.forward_s / chunks, step_.backward_s / chunks, weight_s_ / chunks, 0.0};
}

}  // namespace detail

}  // namespace clearfog::parallel
