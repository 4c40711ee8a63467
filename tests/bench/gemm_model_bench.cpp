// How long one BlockedGemmModel::cost call takes, for the GEMMs of a GPT layer and the cuBLAS
// validation shapes: the training step prices every kernel once per pass, the sweeps many times.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "kernels/LowPrecisionGemmModel.hpp"

namespace {

using namespace clearfog;

const config::AcceleratorSpec& a100() {
  static const auto spec = config::load_accelerator(std::filesystem::path(CLEARFOG_SOURCE_DIR) /
                                                    "platforms/accelerators/a100-sxm4-80gb.yaml");
  return spec;
}

// GPT-3 175B layer at micro-batch 1 (b*s = 2048, h = 12288, 96 heads) and two cuBLAS shapes.
const std::vector<kernels::Kernel>& shapes() {
  static const std::vector<kernels::Kernel> kernels = {
      kernels::Kernel::make_gemm("qkv", {2048, 3 * 12288, 12288, 1}, DType::bf16),
      kernels::Kernel::make_gemm("attn_scores", {2048, 2048, 128, 96}, DType::bf16),
      kernels::Kernel::make_gemm("fc2", {2048, 12288, 4 * 12288, 1}, DType::bf16),
      kernels::Kernel::make_gemm("square_1024", {1024, 1024, 1024, 1}, DType::fp16),
      kernels::Kernel::make_gemm("skinny", {802816, 192, 768, 1}, DType::fp16),
  };
  return kernels;
}

void BM_BlockedGemmCost(benchmark::State& state) {
  const kernels::BlockedGemmModel model(a100());
  const auto& kernel = shapes().at(static_cast<std::size_t>(state.range(0)));
  state.SetLabel(kernel.name);
  for (auto _ : state) benchmark::DoNotOptimize(model.cost(kernel));
}
BENCHMARK(BM_BlockedGemmCost)->DenseRange(0, 4);

void BM_LowPrecisionEstimate(benchmark::State& state) {
  const kernels::LowPrecisionGemmModel model(config::load_accelerator(
      std::filesystem::path(CLEARFOG_SOURCE_DIR) / "platforms/accelerators/cortex-a72.yaml"));
  for (auto _ : state) benchmark::DoNotOptimize(model.estimate({512, 512, 512, 1}, kernels::BitWidths{3, 3}));
}
BENCHMARK(BM_LowPrecisionEstimate);

}  // namespace

BENCHMARK_MAIN();
