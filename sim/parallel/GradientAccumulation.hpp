#pragma once
// How a device sums its micro-batches' gradients where the weight-gradient GEMMs do not add into
// the sum themselves (training.grad_accumulation_fusion off: PyTorch autograd, torchtitan). One
// elementwise add per tensor and micro-batch after the first, reading the new gradient and
// reading and writing the sum (docs/parallelism.md, "gradient accumulation"):
//   - replicated or ZeRO-1 gradients: the whole tensor, in the training precision;
//   - ZeRO-2/3, where every micro-batch reduce-scatters its own gradients: the device's shard of
//     the reduced gradient, in the reduce dtype (FSDP2 adds it into the sharded .grad);
//   - FSDP2 under pipeline parallelism (ScenarioSpec::sums_gradients_unsharded): the whole
//     tensor into an unsharded sum in the reduce dtype; the first micro-batch casts its gradient
//     into the sum (FSDPParam.to_accumulated_grad_if_needed), the others add to it;
//   - Megatron's fp32 main_grad (no gradient copy in the optimizer): every micro-batch, the first
//     too, adds its 16-bit gradient into the zeroed fp32 buffer.
#include "config/ScenarioSpec.hpp"
#include "core/DType.hpp"

namespace clearfog::parallel {

struct GradientAccumulation {
  bool active = false;  // the weight-gradient GEMMs do not accumulate in place
  double dense_share = 1;   // of a dense tensor's elements the device sums
  double expert_share = 1;  // of an expert tensor's (sharded over the expert-data group)
  DType gradient = DType::bf16;  // a micro-batch's new gradient
  DType sum = DType::bf16;       // the running sum
  /// The first micro-batch's cost against a later one's: 0 where it writes the sum in place,
  /// (g + s) / (g + 2s) where it casts its gradient into a wider sum.
  double first_share = 0;

  [[nodiscard]] double bytes_per_element() const { return dtype_bytes(gradient) + 2 * dtype_bytes(sum); }
  /// Per micro-batch on average over `micro_batches`.
  [[nodiscard]] double mean_share(int micro_batches) const {
    return active && micro_batches >= 1 ? (micro_batches - 1 + first_share) / micro_batches : 0.0;
  }
};

GradientAccumulation gradient_accumulation(const config::ScenarioSpec& scenario);

}  // namespace clearfog::parallel
