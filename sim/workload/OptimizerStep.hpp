#pragma once
// One optimizer step as one memory-bound kernel: the bytes and FLOPs per parameter of the update on
// fp32 state and of the passes around it (docs/compute-model.md, "Optimizer"). Every workload kind
// prices its step with it.
#include "config/FrameworkProfile.hpp"
#include "core/DType.hpp"
#include "kernels/Kernel.hpp"

namespace clearfog::workload {

/// Bytes and FLOPs per parameter of one optimizer step.
struct OptimizerTraffic {
  double bytes_per_parameter = 0;
  /// Of those, the bytes multi-tensor kernels stream in one dtype (update, norm, fp16 unscale)
  double streaming_bytes_per_parameter = 0;
  double flops_per_parameter = 0;
};

/// Megatron-LM's optimizer step: gradient norm and the update on fp32 state, plus with 16-bit
/// training the fp32 copies of the gradients and weights (and, with fp16, the unscale pass).
/// `passes` drops the copies (or the unscale) a framework does not run (config::OptimizerPasses).
OptimizerTraffic optimizer_traffic(bool adam, DType precision, config::OptimizerPasses passes = {});

/// One optimizer step over `parameters` parameters trained in `precision`, as one memory-bound
/// kernel with the traffic of optimizer_traffic(); priced at `arithmetic`'s peak (fp32 where the
/// accelerator has it; the step stays memory-bound either way).
kernels::Kernel optimizer_step(double parameters, bool adam, DType precision, DType arithmetic,
                               config::OptimizerPasses passes = {});

}  // namespace clearfog::workload
