// The H200's in-place memory rate (memory.in_place_efficiency) is what its measured eager fp8 casts
// give (platforms/calibration/h200-sxm-low-precision.csv), and a step's memory-bound kernels are
// priced at it while the optimizer's multi-tensor update keeps the copy rate (docs/compute-model.md,
// "Achievable memory bandwidth").
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "kernels/Kernel.hpp"
#include "workload/OptimizerStep.hpp"

using namespace clearfog;

namespace {

const std::filesystem::path kRoot(CLEARFOG_SOURCE_DIR);

config::AcceleratorSpec h200() { return config::load_accelerator(kRoot / "platforms/accelerators/h200-sxm.yaml"); }

/// Bytes an element of a bf16 m x n tensor costs in the recipes' eager cast of one output
/// (scripts/measure-low-precision.py, quantize_function), operator by operator: x.abs() reads and
/// writes bf16, amax reads it, x.float() reads bf16 and writes fp32, the scaling multiply and the
/// clamp read and write fp32, .to(float8) reads fp32 and writes one byte. The scales are per
/// tensor, row or block: negligible.
constexpr double kEagerCastBytes = (2 + 2) + 2 + (2 + 4) + (4 + 4) + (4 + 4) + (4 + 1);

}  // namespace

TEST_CASE("kernels::the H200's in-place memory rate is the geometric mean of its eager fp8 casts",
          "[kernels][calibration]") {
  std::ifstream in(kRoot / "platforms/calibration/h200-sxm-low-precision.csv");
  REQUIRE(in);
  const auto a = h200();
  double log_sum = 0;
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> c;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) c.push_back(cell);
    // kind,recipe,impl,m,n,k,outputs,limit_bytes,time_s,...
    if (c.size() < 9 || c[0] != "quantize" || c[2] != "eager" || c[6] != "1") continue;
    const double elements = std::stod(c[3]) * std::stod(c[4]);
    log_sum += std::log(kEagerCastBytes * elements / std::stod(c[8]) / a.memory_bandwidth_Bps);
    ++rows;
  }
  REQUIRE(rows == 16);  // 4 recipes x 4 shapes
  CHECK(a.in_place_efficiency == Approx(std::exp(log_sum / rows)).margin(0.005));
  CHECK(a.in_place_efficiency < a.memory_efficiency);  // below the copies' rate
}

TEST_CASE("kernels::memory-bound kernels move at the in-place rate, the optimizer's update at the copy rate",
          "[kernels]") {
  auto a = h200();
  a.launch_overhead_s = 0;
  a.sram_shared_bandwidth_Bps = 0;  // HBM for every size
  const kernels::BlockedGemmModel model(a);
  const double bytes = 1e9;
  const auto pointwise = kernels::Kernel::make_memory_bound("pointwise", bytes, 0, DType::bf16);
  CHECK(model.cost(pointwise).time_s == Approx(bytes / (a.memory_bandwidth_Bps * a.in_place_efficiency)));
  // Megatron's mixed-precision Adam: 32 B a parameter streamed in fp32 (update and norm), 12 B of
  // casts between the 16-bit model and the fp32 masters (optimizer_traffic).
  const double parameters = 1e9;
  const auto adam = workload::optimizer_step(parameters, true, DType::bf16, DType::fp32);
  CHECK(adam.bytes == Approx(44 * parameters));
  CHECK(adam.streaming_bytes == Approx(32 * parameters));
  CHECK(model.cost(adam).time_s == Approx(32 * parameters / (a.memory_bandwidth_Bps * a.memory_efficiency) +
                                          12 * parameters / (a.memory_bandwidth_Bps * a.in_place_efficiency)));
}
