// GEMM efficiency per dtype on Hopper. The shipped H100 file takes its efficiencies from the H200
// (the same GH100 die under the same 700 W limit), fitted to GEMMs sustained for seconds
// (platforms/calibration/h200-sxm.csv). Published GEMM rates are burst figures, so they check it
// from above: Azure's cuBLASLt fp8 on ND H200 v5 (shared/reference/gemm_h200_gb200.csv) and the MAMF
// finder's H100 bests (fp8 slower per peak than bf16: 70.9 % against 80.3 %).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "config/ConfigLoader.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "support/ReferenceCsv.hpp"

using namespace clearfog;
using clearfog::kernels::BlockedGemmModel;
using clearfog::kernels::GemmShape;

namespace {

BlockedGemmModel h100() {
  return BlockedGemmModel(config::load_accelerator(std::filesystem::path(CLEARFOG_SOURCE_DIR) /
                                                   "platforms/accelerators/h100-sxm5.yaml"));
}

double predicted_tflops(const BlockedGemmModel& model, long long m, long long n, long long k, DType dtype) {
  return model.estimate(GemmShape{m, n, k, 1}, dtype).flops_per_s / 1e12;
}

}  // namespace

TEST_CASE("kernels::GEMM by dtype: H100 fp8 against cuBLASLt fp8 on H200", "[kernels][validation]") {
  const auto model = h100();
  int checked = 0;
  for (const auto& row : test::read_csv_table(std::filesystem::path(CLEARFOG_REFERENCE_DIR) / "gemm_h200_gb200.csv")) {
    if (row.at("gpu") != "h200" || row.at("dtype") != "fp8") continue;
    const long long m = std::stoll(row.at("m")), n = std::stoll(row.at("n")), k = std::stoll(row.at("k"));
    const double published = std::stod(row.at("tflops"));
    const double predicted = predicted_tflops(model, m, n, k, DType::fp8);
    INFO(m << "x" << n << "x" << k << ": predicted " << predicted << " TFLOP/s, published " << published);
    // Squares from 4096 and the 6144x12288x12288 layer: below the burst figure, by at most 12 % (the
    // sustained fit's own 16384^3 row, 1288 TFLOP/s, is 5.7 % below Azure's 1366). The shorter and
    // skinny shapes: within 45 %. Azure's times of short GEMMs hold the host's issue cost: its 1024^3
    // runs at 290.8 TFLOP/s, where the same GEMM replayed from a CUDA graph on an H200 runs at 457
    // (platforms/calibration/h200-sxm.csv).
    const bool large = m >= 4096 && n >= 4096 && k >= 4096;
    CHECK(predicted == Approx(published).epsilon(large ? 0.12 : 0.45));
    if (large) CHECK(predicted < published);
    ++checked;
  }
  CHECK(checked == 9);
}

TEST_CASE("kernels::GEMM by dtype: fp8 sustains a smaller share of its peak than bf16 on H100", "[kernels]") {
  const auto model = h100();
  const long long s = 8192;
  const double bf16 = predicted_tflops(model, s, s, s, DType::bf16) / 989.4;
  const double fp8 = predicted_tflops(model, s, s, s, DType::fp8) / 1978.9;
  CHECK(fp8 < bf16);
  // The MAMF finder's H100 bests: 1402.6 of 1978.9 (fp8) and 794.5 of 989 (bf16).
  CHECK(fp8 / bf16 == Approx((1402.6 / 1978.9) / (794.5 / 989.0)).epsilon(0.05));
}
