#include "workload/MemoryEstimate.hpp"

#include <fmt/format.h>

#include <algorithm>

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

MemoryEstimate estimate_memory(const config::ScenarioSpec& scenario) {
  const auto& par = scenario.parallelism;
  if (par.tp != 1 || par.pp != 1)
    throw Error(fmt::format("estimate_memory: scenario '{}': only data parallelism is modeled, got tp={} pp={}",
                            scenario.name, par.tp, par.pp));
  const auto& training = scenario.training;
  const auto& w = scenario.workload;
  const StateBytes per_param = state_bytes(training.precision);
  const TransformerModel model(w, training.micro_batch, training.precision);
  const double psi = model.total_parameters();

  MemoryEstimate m;
  m.weights_B = per_param.weights * psi;
  m.gradients_B = per_param.gradients * psi;
  m.optimizer_B = (training.optimizer == config::Optimizer::Adam ? per_param.adam : per_param.sgd) * psi;
  // One micro-batch in flight under data parallelism: every layer's saved activations plus the
  // fp32 softmax of the logits kept for the cross-entropy backward.
  constexpr double kLogitsBytes = 4;
  const double logits = kLogitsBytes * training.micro_batch * static_cast<double>(w.seq_length) * w.vocab_size;
  m.activations_B = w.layers * activation_bytes_per_layer(w, training.micro_batch, training.precision) + logits;
  // DDP all-reduces gradients bucket by bucket. The gradients themselves are counted once (as with
  // gradient_as_bucket_view); on top, the bucket being all-reduced needs one bucket of staging
  // space. A model smaller than a bucket has one bucket of its whole gradient; one replica none.
  m.buffers_B = par.dp > 1 ? std::min(training.bucket_size_B, m.gradients_B) : 0.0;
  m.capacity_B = scenario.platform.accelerator.memory_capacity_B;
  return m;
}

}  // namespace clearfog::workload
