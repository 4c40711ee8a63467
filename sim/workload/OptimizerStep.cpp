#include "workload/OptimizerStep.hpp"

#include <fmt/format.h>

#include "core/Errors.hpp"
#include "workload/TransformerKernelParts.hpp"

namespace clearfog::workload {

using namespace parts;

OptimizerTraffic optimizer_traffic(bool adam, DType precision, config::OptimizerPasses passes) {
  // Update kernel (apex FusedAdam / SGD) on fp32 state: Adam reads p, g, m, v and writes p, m, v
  // (28 B; FLOPs: m 3, v 4, update 5); SGD with momentum reads p, g, buf and writes p, buf (20 B;
  // FLOPs: momentum 2, update 2). Every step also takes the gradient norm for clipping (read 4 B,
  // 2 FLOP).
  OptimizerTraffic o;
  o.bytes_per_parameter = (adam ? 28.0 : 20.0) + kFp32Bytes;
  o.streaming_bytes_per_parameter = o.bytes_per_parameter;
  o.flops_per_parameter = (adam ? 12.0 : 4.0) + 2;
  if (precision == DType::fp32 || precision == DType::tf32) return o;
  // Mixed precision as Megatron-LM's Float16Optimizer runs it: copy the 16-bit gradients into
  // fp32 main gradients (2 + 4; not where they are fp32 already), with fp16 unscale them and check for inf/NaN (4 + 4, 1 FLOP),
  // and after the update copy the fp32 main weights back to the 16-bit model (4 + 2). FP8
  // training keeps 16-bit weights and gradients (Transformer Engine).
  // Frameworks whose optimizer updates fp32 shards cast on the fly (FSDP, compiled graphs) run
  // neither pass (config::OptimizerPasses).
  constexpr double kHalf = 2;
  if (passes.master_copies) o.bytes_per_parameter += (passes.gradient_copy ? 2 : 1) * (kHalf + kFp32Bytes);
  if (precision == DType::fp16 && passes.fp16_unscale) {
    o.bytes_per_parameter += 2 * kFp32Bytes;
    o.streaming_bytes_per_parameter += 2 * kFp32Bytes;
    o.flops_per_parameter += 1;
  }
  // FP8: the updated 16-bit weights are cast to fp8 once per step, row- and column-wise (Transformer
  // Engine keeps the fp8 copies over the step's micro-batches); counted for every parameter.
  if (precision == DType::fp8) {
    o.bytes_per_parameter += kCastTransposeBytes;
    o.flops_per_parameter += kCastFlops;
  }
  return o;
}

kernels::Kernel optimizer_step(double parameters, bool adam, DType precision, DType arithmetic,
                               config::OptimizerPasses passes) {
  if (!(parameters >= 0))
    throw Error(fmt::format("optimizer_step: parameters must be >= 0, got {}", parameters));
  const OptimizerTraffic o = optimizer_traffic(adam, precision, passes);
  auto kernel = kernels::Kernel::make_memory_bound(adam ? "optimizer.adam" : "optimizer.sgd",
                                                   o.bytes_per_parameter * parameters,
                                                   o.flops_per_parameter * parameters, arithmetic);
  // The update and the norm stream fp32 tensors in one dtype (multi_tensor_apply): the copy rate.
  // The master copies cast between 16 and 32 bits: the in-place rate (docs/compute-model.md).
  kernel.streaming_bytes = o.streaming_bytes_per_parameter * parameters;
  return kernel;
}

}  // namespace clearfog::workload
