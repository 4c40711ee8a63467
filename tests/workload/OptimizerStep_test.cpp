// The optimizer step's bytes and FLOPs per parameter, pass by pass (docs/compute-model.md, "Optimizer").
#include <catch2/catch.hpp>

#include "workload/OptimizerStep.hpp"

using namespace clearfog;
using clearfog::kernels::Kernel;

TEST_CASE("workload::optimizer_step: traffic per parameter", "[workload]") {
  const double psi = 1e9;
  // fp32 training: Adam reads p, g, m, v (4 x 4 B) and writes p, m, v (3 x 4 B); the gradient
  // norm for clipping reads g once more (4 B).
  const double adam_fp32 = 4 * 4 + 3 * 4 + 4;
  const Kernel adam = workload::optimizer_step(psi, true, DType::fp32, DType::fp32);
  CHECK(adam.bytes == adam_fp32 * psi);
  CHECK(adam.flops == (12 + 2) * psi);
  CHECK(adam.dtype == DType::fp32);
  // bf16 (Megatron's Float16Optimizer): the 16-bit gradient copied into an fp32 one (2 + 4 B)
  // before, the fp32 weight copied back into the 16-bit model (4 + 2 B) after.
  CHECK(workload::optimizer_step(psi, true, DType::bf16, DType::fp32).bytes == (adam_fp32 + 12) * psi);
  // fp16 also unscales the fp32 gradient and checks it for inf/NaN (read + write 4 B): 52 B.
  CHECK(workload::optimizer_step(psi, true, DType::fp16, DType::fp32).bytes == 52 * psi);
  // SGD with momentum: reads p, g, buf and writes p, buf (5 x 4 B), plus the norm and the copies.
  const Kernel sgd = workload::optimizer_step(psi, false, DType::bf16, DType::bf16);
  CHECK(sgd.bytes == (5 * 4 + 4 + 12) * psi);
  CHECK(sgd.flops == (4 + 2) * psi);
  CHECK(sgd.dtype == DType::bf16);
  // Megatron's fp32 main_grad (bf16 gradients summed in fp32): no gradient copy, the weight copy only.
  CHECK(workload::optimizer_step(psi, true, DType::bf16, DType::fp32, config::OptimizerPasses{.gradient_copy = false})
            .bytes == (adam_fp32 + 6) * psi);
}
