#include "workload/MemoryEstimate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/Errors.hpp"
#include "workload/TransformerModel.hpp"

// Sources and derivations: docs/compute-model.md ("Memory per device").
namespace clearfog::workload {

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

double activation_bytes_per_layer(const config::WorkloadSpec& w, int micro_batch, DType precision) {
  const auto s = static_cast<double>(w.seq_length);
  const auto b = static_cast<double>(micro_batch);
  const auto h = static_cast<double>(w.hidden);
  const auto a = static_cast<double>(w.heads);
  // Korthikanti Table 2 counts 16-bit activations (and 1-byte dropout masks). 4-byte activations
  // scale the whole count by 2, which overestimates slightly since the masks stay 1 byte; fp8
  // training keeps most saved activations in 16 bits, so it is counted as 16-bit.
  const double scale = std::max(dtype_bytes(precision), 2.0) / 2.0;
  return scale * s * b * h * (34 + 5 * a * s / h);
}

double activation_bytes_per_layer(const config::WorkloadSpec& w, int micro_batch, DType precision, int tp,
                                  bool sequence_parallel, config::Recompute recompute, config::Attention attention) {
  const auto s = static_cast<double>(w.seq_length);
  const auto b = static_cast<double>(micro_batch);
  const auto h = static_cast<double>(w.hidden);
  const auto a = static_cast<double>(w.heads);
  const auto t = static_cast<double>(tp);
  const double scale = std::max(dtype_bytes(precision), 2.0) / 2.0;
  const double sbh = s * b * h;
  const double rest = scale * sbh * (sequence_parallel ? 34 / t : 10 + 24 / t);
  // The fused kernel's fp32 logsumexp per query row of this rank's heads; it is never rescaled.
  constexpr double kLogsumexpBytes = 4;
  const double logsumexp = attention == config::Attention::Fused ? kLogsumexpBytes * b * a * s / t : 0.0;
  switch (recompute) {
    case config::Recompute::Full: return scale * 2 * sbh;  // the layer input only
    case config::Recompute::Selective: return rest + logsumexp;  // fused: nothing to recompute
    case config::Recompute::None: break;
  }
  if (attention == config::Attention::Fused) return rest + logsumexp;
  const double scores = 5 * a * s / (h * t);  // softmax output 2as/h, dropout mask as/h, its output 2as/h
  return rest + scale * sbh * scores;
}

double in_flight_micro_batches(const config::ParallelismSpec& par, int micro_batches) {
  const double p = par.pp;
  const double m = micro_batches;
  if (par.pp == 1) return 1;
  switch (par.schedule) {
    case config::PipelineSchedule::GPipe: return m;
    case config::PipelineSchedule::OneFOneB: return std::min(p, m);
    case config::PipelineSchedule::Interleaved: return std::min(m, p * (1 + (p - 1) / (p * m)));
  }
  return p;
}

ModelStates model_state_bytes(double parameters, DType precision, config::Optimizer optimizer, int zero_stage, int dp) {
  const StateBytes per_param = state_bytes(precision);
  const double n = dp;
  ModelStates m;
  m.weights_B = per_param.weights * parameters / (zero_stage >= 3 ? n : 1.0);
  m.gradients_B = per_param.gradients * parameters / (zero_stage >= 2 ? n : 1.0);
  m.optimizer_B = (optimizer == config::Optimizer::Adam ? per_param.adam : per_param.sgd) * parameters /
                  (zero_stage >= 1 ? n : 1.0);
  return m;
}

MemoryEstimate estimate_memory(const config::ScenarioSpec& scenario) {
  const auto& par = scenario.parallelism;
  const auto& training = scenario.training;
  const auto& w = scenario.workload;
  state_bytes(training.precision);  // rejects int8
  const TransformerModel model(w, training.micro_batch, training.precision);
  const double t = par.tp;

  // Layers per stage (all chunks of a device together) and the stage holding the most.
  const int chunks = par.pp * par.virtual_stages;
  std::vector<int> stage_layers(par.pp, 0);
  for (int c = 0; c < chunks; ++c) {
    const int layers = par.layer_split.size() == static_cast<std::size_t>(chunks) ? par.layer_split[c]
                                                                                  : w.layers / chunks;
    stage_layers[c % par.pp] += layers;
  }
  // Stage 0 holds the embedding; the last stage a copy of it for the tied logits layer (Megatron).
  double parameters = 0;
  for (int st = 0; st < par.pp; ++st) {
    double p = stage_layers[st] * model.parameters_per_layer();
    if (st == 0 || st == par.pp - 1) p += model.embedding_parameters();
    if (st == par.pp - 1) p += model.head_parameters();
    parameters = std::max(parameters, p / t);
  }
  const ModelStates states =
      model_state_bytes(parameters, training.precision, training.optimizer, par.zero_stage, par.dp);

  MemoryEstimate m;
  m.weights_B = states.weights_B;
  m.gradients_B = states.gradients_B;
  m.optimizer_B = states.optimizer_B;
  const double per_layer = activation_bytes_per_layer(w, training.micro_batch, training.precision, par.tp,
                                                      par.sequence_parallel, training.recompute, training.attention);
  // The fp32 softmax of the (vocabulary-parallel) logits, kept for the cross-entropy backward on the
  // last stage, for the one micro-batch between its forward and backward.
  constexpr double kLogitsBytes = 4;
  const double logits =
      kLogitsBytes * training.micro_batch * static_cast<double>(w.seq_length) * std::ceil(w.vocab_size / t);
  const int micro_batches = scenario.micro_batches_per_replica();
  const double first = in_flight_micro_batches(par, micro_batches) * stage_layers.front() * per_layer;
  const double last = stage_layers.back() * per_layer + logits;
  m.activations_B = par.pp == 1 ? first + logits : std::max(first, last);

  // DDP all-reduces gradients bucket by bucket. The gradients themselves are counted once (as with
  // gradient_as_bucket_view); on top, the bucket being all-reduced needs one bucket of staging
  // space. A model smaller than a bucket has one bucket of its whole gradient; one replica none.
  m.buffers_B = par.dp > 1 ? std::min(training.bucket_size_B, state_bytes(training.precision).gradients * parameters) : 0.0;
  // Full recomputation re-creates one layer's activations at a time during backward.
  if (training.recompute == config::Recompute::Full)
    m.buffers_B += activation_bytes_per_layer(w, training.micro_batch, training.precision, par.tp,
                                              par.sequence_parallel, config::Recompute::None, training.attention);
  // ZeRO-3 gathers one layer's parameters at a time, with the next one prefetched.
  if (par.zero_stage >= 3 && par.dp > 1)
    m.buffers_B += 2 * state_bytes(training.precision).weights * model.parameters_per_layer() / t;
  m.capacity_B = scenario.platform.accelerator.memory_capacity_B;
  return m;
}

}  // namespace clearfog::workload
