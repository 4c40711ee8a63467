#include "parallel/MemoryEstimate.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/Errors.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "parallel/BlockCosts.hpp"
#include "parallel/ChunkPlacement.hpp"
#include "parallel/StepPlanner.hpp"
#include "workload/WorkloadType.hpp"

namespace clearfog::parallel {

namespace {

// Bytes per parameter of the model states (ZeRO paper, Rajbhandari et al. SC20, Sec. 3.1).
struct StateBytes {
  double weights, gradients, adam, sgd;
};
// fp16/bf16/fp8 training: 16-bit working weights and gradients; fp32 master copy + Adam's m and v
// (12) or + SGD's momentum (8). FP8 training (Transformer Engine) keeps 16-bit weights and casts.
constexpr StateBytes kMixedPrecision{2, 2, 12, 8};
// fp32/tf32 training: the weights are the master copy; Adam adds m and v, SGD the momentum.
constexpr StateBytes kFullPrecision{4, 4, 8, 4};

StateBytes state_bytes(DType precision) {
  switch (precision) {
    case DType::fp16:
    case DType::bf16:
    case DType::fp8: return kMixedPrecision;
    case DType::fp32:
    case DType::tf32: return kFullPrecision;
    case DType::int8: break;
  }
  throw Error(fmt::format("estimate_memory: {} is not a training precision (fp32, tf32, fp16, bf16, fp8)",
                          dtype_name(precision)));
}

}  // namespace

ModelStates model_state_bytes(double parameters, DType precision, config::Optimizer optimizer, int zero_stage, int dp,
                              MasterGradient master) {
  constexpr double kFp32GradientBytes = 4;
  const StateBytes per_param = state_bytes(precision);
  const double n = dp;
  ModelStates m;
  m.weights_B = per_param.weights * parameters / (zero_stage >= 3 ? n : 1.0);
  const double gradient = master == MasterGradient::Accumulated ? kFp32GradientBytes : per_param.gradients;
  m.gradients_B = gradient * parameters / (zero_stage >= 2 ? n : 1.0);
  if (master == MasterGradient::Copied) m.gradients_B += kFp32GradientBytes * parameters / (zero_stage >= 1 ? n : 1.0);
  m.optimizer_B = (optimizer == config::Optimizer::Adam ? per_param.adam : per_param.sgd) * parameters /
                  (zero_stage >= 1 ? n : 1.0);
  return m;
}

MasterGradient master_gradient(const config::ScenarioSpec& scenario) {
  const DType p = scenario.training.precision;
  const bool mixed = p == DType::fp16 || p == DType::bf16 || p == DType::fp8;
  if (!mixed || !scenario.framework.optimizer.master_copies) return MasterGradient::None;
  return scenario.training.grad_accumulation_fusion ? MasterGradient::Accumulated : MasterGradient::Copied;
}

double peak_stage_activations(const config::ScenarioSpec& scenario, int stage,
                              const std::vector<double>& chunk_activation_B) {
  const auto& type = scenario_schedule(scenario);
  double held = 0, peak = 0;
  // A split backward keeps the activations its W pass reads until W: they are counted to W's end.
  using Pass = schedule::PipelineStep::Pass;
  for (const auto& step : schedule::pipeline_order(type, scenario_pipeline_shape(scenario), stage)) {
    const double bytes = chunk_activation_B.at(static_cast<std::size_t>(step.chunk));
    if (step.pass == Pass::Forward) {
      held += bytes;
      peak = std::max(peak, held);
    } else if (step.pass != Pass::BackwardInput) {
      held -= bytes;
    }
  }
  return peak;
}

MemoryEstimate estimate_memory(const config::ScenarioSpec& scenario) {
  const auto& par = scenario.parallelism;
  const auto& training = scenario.training;
  const StateBytes per_param = state_bytes(training.precision);  // rejects int8
  const MasterGradient master = master_gradient(scenario);
  const auto model = workload::describe(scenario);
  std::vector<double> block_time_s;
  if (partition_of(scenario) == config::StagePartition::Balanced && par.layer_split.empty())
    block_time_s = BlockCosts(model, kernels::BlockedGemmModel(scenario.platform.accelerator)).block_times();
  const auto chunks = scenario_chunks(scenario, model, block_time_s);
  const auto policy = workload::policy_index(training.recompute);

  // Each stage's own parameters: a tied tensor is a copy of its own only on other stages than
  // its origin's (as the planner holds them); DualPipe holds every chunk on two stages.
  const ChunkPlacement placement(scenario_schedule(scenario), scenario_pipeline_shape(scenario));
  std::vector<std::vector<int>> stages_of_block(model.blocks.size());
  for (std::size_t k = 0; k < chunks.size(); ++k)
    for (std::size_t b = chunks[k].begin; b < chunks[k].end; ++b)
      stages_of_block[b] = placement.holders(static_cast<int>(k));
  const auto holds = [&](std::size_t b, int s) {
    return std::find(stages_of_block[b].begin(), stages_of_block[b].end(), s) != stages_of_block[b].end();
  };
  // Expert parameters are sharded by ZeRO over the expert-data group (dp/ep devices), the others
  // over dp (docs/moe.md).
  std::vector<double> parameters(static_cast<std::size_t>(par.pp), 0.0), expert_parameters = parameters,
                      stage_transient = parameters;
  double largest_block = 0, largest_checkpointed = 0, largest_op_recomputed = 0;
  for (std::size_t b = 0; b < model.blocks.size(); ++b) {
    const auto& block = model.blocks[b];
    for (const auto& p : block.params) {
      if (!p.tied_to.empty() &&
          stages_of_block[model.block_index(p.tied_to.substr(0, p.tied_to.find('.')))] == stages_of_block[b])
        continue;
      for (const int s : stages_of_block[b]) (p.expert ? expert_parameters : parameters)[s] += p.elements;
    }
    largest_block = std::max(largest_block, block.device_parameters());
    for (const int s : stages_of_block[b]) stage_transient[s] = std::max(stage_transient[s], block.backward_transient_B);
    if (block.checkpointable) {
      const auto& saved = block.saved_activation_B;
      const double all_B = saved[workload::policy_index(config::Recompute::None)];
      largest_checkpointed = std::max(largest_checkpointed, all_B);
      largest_op_recomputed =
          std::max(largest_op_recomputed, all_B - saved[workload::policy_index(config::Recompute::Op)]);
    }
  }

  // Sparse embedding tables (docs/dlrm.md): each device holds its shards; the busiest device counts.
  std::vector<double> sparse_weights(static_cast<std::size_t>(par.pp), 0.0), sparse_optimizer = sparse_weights;
  for (int s = 0; s < par.pp; ++s) {
    std::vector<double> weights_by_rank, optimizer_by_rank;
    for (std::size_t b = 0; b < model.blocks.size(); ++b) {
      const auto& block = model.blocks[b];
      if (!holds(b, s)) continue;
      weights_by_rank.resize(std::max(weights_by_rank.size(), block.sparse_weights_B_by_expert_rank.size()), 0.0);
      optimizer_by_rank.resize(weights_by_rank.size(), 0.0);
      for (std::size_t j = 0; j < block.sparse_weights_B_by_expert_rank.size(); ++j) {
        weights_by_rank[j] += block.sparse_weights_B_by_expert_rank[j];
        optimizer_by_rank[j] += block.sparse_optimizer_B_by_expert_rank.at(j);
      }
    }
    for (std::size_t j = 0; j < weights_by_rank.size(); ++j)
      if (weights_by_rank[j] + optimizer_by_rank[j] > sparse_weights[s] + sparse_optimizer[s]) {
        sparse_weights[s] = weights_by_rank[j];
        sparse_optimizer[s] = optimizer_by_rank[j];
      }
  }

  MemoryEstimate worst;
  for (int s = 0; s < par.pp; ++s) {
    std::vector<double> chunk_activation(static_cast<std::size_t>(placement.chunks_per_device()), 0.0);
    for (std::size_t c = 0; c < chunk_activation.size(); ++c) {
      const auto& range = chunks[static_cast<std::size_t>(placement.model_chunk(s, static_cast<int>(c)))];
      for (std::size_t b = range.begin; b < range.end; ++b)
        chunk_activation[c] += model.blocks[b].saved_activation_B[policy];
    }
    const ModelStates dense = model_state_bytes(parameters[s], training.precision, training.optimizer, par.zero_stage,
                                                par.shard_degree(), master);
    const ModelStates experts = model_state_bytes(expert_parameters[s], training.precision, training.optimizer,
                                                  par.zero_stage, par.dp / par.ep, master);
    const ModelStates states{dense.weights_B + experts.weights_B, dense.gradients_B + experts.gradients_B,
                             dense.optimizer_B + experts.optimizer_B};
    MemoryEstimate m;
    m.stage = s;
    m.weights_B = states.weights_B + sparse_weights[s];
    m.gradients_B = states.gradients_B;
    m.optimizer_B = states.optimizer_B + sparse_optimizer[s];
    m.activations_B = peak_stage_activations(scenario, s, chunk_activation);
    // DDP all-reduces gradients bucket by bucket. The gradients themselves are counted once (as
    // with gradient_as_bucket_view); on top, the bucket being reduced needs one bucket of staging
    // space. A stage smaller than a bucket has one bucket of its whole gradient; one replica none.
    m.buffers_B = par.dp > 1 ? std::min(training.bucket_size_B,
                                        per_param.gradients * (parameters[s] + expert_parameters[s]))
                             : 0.0;
    // Full recomputation re-creates one block's activations at a time during backward.
    if (training.recompute == config::Recompute::Full) m.buffers_B += largest_checkpointed;
    // Per-op recomputation re-creates what the policy did not keep, one block at a time.
    if (training.recompute == config::Recompute::Op) m.buffers_B += largest_op_recomputed;
    // One block's backward runs at a time: the largest transient of the stage's blocks (the loss's).
    m.buffers_B += stage_transient[s];
    if (scenario.sums_gradients_unsharded()) {
      // FSDP2 under pipeline parallelism: the stage's parameters stay gathered over the step (ZeRO-3;
      // under ZeRO-2 they are never sharded), and its micro-batches' gradients are summed unsharded
      // in the reduce dtype until the last one.
      const double stage_parameters = parameters[s] + expert_parameters[s];
      if (scenario.holds_unsharded_parameters()) m.weights_B += per_param.weights * stage_parameters;
      if (scenario.micro_batches_per_replica() > 1)
        m.gradients_B += dtype_bytes(scenario.gradient_reduce_dtype()) * stage_parameters;
    } else if (par.zero_stage >= 3 && par.dp > 1) {
      // ZeRO-3 gathers one block's parameters at a time, with the next one prefetched.
      m.buffers_B += 2 * per_param.weights * largest_block;
    }
    // A mixed platform: the smaller memory of its two kinds (any stage may sit on either).
    m.capacity_B = scenario.platform.accelerator.memory_capacity_B;
    if (scenario.platform.mixed) m.capacity_B = std::min(m.capacity_B, scenario.platform.mixed->accelerator.memory_capacity_B);
    if (s == 0 || m.total_B() > worst.total_B()) worst = m;
  }
  return worst;
}

}  // namespace clearfog::parallel
