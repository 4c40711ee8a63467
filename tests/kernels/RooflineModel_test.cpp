// The roofline: time = max(flops / peak(dtype), bytes / bandwidth), split at the ridge point.
#include <catch2/catch.hpp>

#include "config/AcceleratorSpec.hpp"
#include "core/Errors.hpp"
#include "kernels/RooflineModel.hpp"

using namespace clearfog;
using clearfog::kernels::Bound;
using clearfog::kernels::GemmShape;
using clearfog::kernels::Kernel;
using clearfog::kernels::RooflineModel;

namespace {
// A100 SXM4 80GB, dense tensor-core peaks and HBM bandwidth (shared/reference/hardware_specs.md,
// NVIDIA A100 datasheet). No fp8 peak: A100 has no FP8 tensor cores.
config::AcceleratorSpec a100() {
  config::AcceleratorSpec acc;
  acc.name = "A100-SXM4-80GB";
  acc.peak_flops = {{DType::bf16, 312e12}, {DType::fp16, 312e12}, {DType::tf32, 156e12}, {DType::fp32, 19.5e12}};
  acc.memory_capacity_B = 80e9;
  acc.memory_bandwidth_Bps = 2039e9;
  return acc;
}
// Square n x n x n GEMM: 2n^3 FLOP over 3n^2 elements.
double square_gemm_intensity(long long n, double element_bytes) {
  return 2.0 * static_cast<double>(n) / (3.0 * element_bytes);
}
}  // namespace

TEST_CASE("kernels::RooflineModel: GEMMs below the ridge point are memory-bound, above it compute-bound",
          "[kernels]") {
  const auto acc = a100();
  const RooflineModel roofline(acc);
  const double ridge = acc.peak(DType::bf16) / acc.memory_bandwidth_Bps;  // FLOP/B, ~153

  SECTION("small GEMM") {
    const long long n = 64;
    REQUIRE(square_gemm_intensity(n, 2) < ridge);
    const Kernel gemm = Kernel::make_gemm("small", GemmShape{n, n, n, 1}, DType::bf16);
    REQUIRE(gemm.flops / gemm.bytes == Approx(square_gemm_intensity(n, 2)));
    const auto cost = roofline.cost(gemm);
    CHECK(cost.bound == Bound::Memory);
    CHECK(cost.time_s == Approx(gemm.bytes / acc.memory_bandwidth_Bps).epsilon(1e-12));
  }
  SECTION("large GEMM") {
    const long long n = 4096;
    REQUIRE(square_gemm_intensity(n, 2) > ridge);
    const Kernel gemm = Kernel::make_gemm("large", GemmShape{n, n, n, 1}, DType::bf16);
    const auto cost = roofline.cost(gemm);
    CHECK(cost.bound == Bound::Compute);
    CHECK(cost.time_s == Approx(gemm.flops / acc.peak(DType::bf16)).epsilon(1e-12));
  }
  SECTION("the ridge moves with the dtype's peak") {
    // fp32 on CUDA cores: ridge ~9.6 FLOP/B, so a GEMM that is memory-bound in bf16 is compute-bound.
    const long long n = 64;
    const double fp32_ridge = acc.peak(DType::fp32) / acc.memory_bandwidth_Bps;
    REQUIRE(square_gemm_intensity(n, 4) > fp32_ridge);
    const Kernel gemm = Kernel::make_gemm("fp32", GemmShape{n, n, n, 1}, DType::fp32);
    const auto cost = roofline.cost(gemm);
    CHECK(cost.bound == Bound::Compute);
    CHECK(cost.time_s == Approx(gemm.flops / acc.peak(DType::fp32)).epsilon(1e-12));
  }
}

TEST_CASE("kernels::RooflineModel: a layernorm is priced by its bytes", "[kernels]") {
  const auto acc = a100();
  const RooflineModel roofline(acc);
  const double bytes = 2.0 * 4 * 2048 * 12288 * 2;  // read and write b*s*h bf16 elements
  const auto cost = roofline.cost(Kernel::make_memory_bound("ln", bytes, 8.0 * 4 * 2048 * 12288, DType::bf16));
  CHECK(cost.bound == Bound::Memory);
  CHECK(cost.time_s == Approx(bytes / acc.memory_bandwidth_Bps).epsilon(1e-12));
  CHECK(roofline.name() == "roofline");
}

TEST_CASE("kernels::RooflineModel: a dtype without a peak is an error naming accelerator and dtype",
          "[kernels]") {
  const RooflineModel roofline(a100());
  const Kernel gemm = Kernel::make_gemm("fp8_gemm", GemmShape{128, 128, 128, 1}, DType::fp8);
  CHECK_THROWS_AS(roofline.cost(gemm), Error);
  CHECK_THROWS_WITH(roofline.cost(gemm), Catch::Contains("A100-SXM4-80GB") && Catch::Contains("fp8"));
}

TEST_CASE("kernels::RooflineModel: rejects an accelerator without bandwidth or with a zero peak", "[kernels]") {
  SECTION("bandwidth") {
    auto acc = a100();
    acc.memory_bandwidth_Bps = 0;
    CHECK_THROWS_AS(RooflineModel(acc), Error);
  }
  SECTION("peak") {
    auto acc = a100();
    acc.peak_flops[DType::int8] = 0;
    CHECK_THROWS_WITH(RooflineModel(acc), Catch::Contains("int8"));
  }
}
