// The H200 file's GEMM efficiencies were fitted to one run of scripts/measure-accelerator.py
// (platforms/calibration/h200-sxm.csv: squares, GPT-layer GEMMs with 4h MLPs). A second run, of
// scripts/measure-low-precision.py (platforms/calibration/h200-sxm-low-precision.csv), timed Llama 3
// 8B's weight GEMMs (GQA projections, the 14336-wide SwiGLU MLP) at 8192 and 1024 tokens and their
// weight-gradient shapes, in bf16 and in fp8 with per-tensor scales: shapes the fit never saw. The
// model must predict them without refitting.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "config/ConfigLoader.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "support/ReferenceCsv.hpp"

using namespace clearfog;
using clearfog::kernels::BlockedGemmModel;
using clearfog::kernels::GemmShape;

TEST_CASE("kernels::H200 GEMMs of Llama 3 8B, bf16 and fp8, held out of the fit", "[kernels][validation]") {
  const std::filesystem::path root(CLEARFOG_SOURCE_DIR);
  const BlockedGemmModel model(config::load_accelerator(root / "platforms/accelerators/h200-sxm.yaml"));
  double signed_sum = 0;
  int checked = 0;
  for (const auto& row : test::read_csv_table(root / "platforms/calibration/h200-sxm-low-precision.csv")) {
    if (row.at("kind") != "scaled_gemm") continue;
    const auto& recipe = row.at("recipe");
    if (recipe != "bf16" && recipe != "tensorwise") continue;  // the other scalings: no model yet
    const long long m = std::stoll(row.at("m")), n = std::stoll(row.at("n")), k = std::stoll(row.at("k"));
    const DType dtype = recipe == "bf16" ? DType::bf16 : DType::fp8;
    const double measured_s = std::stod(row.at("time_s"));
    const double predicted_s = model.estimate(GemmShape{m, n, k, 1}, dtype).time_s;
    const double error = predicted_s / measured_s - 1;
    INFO(recipe << " " << m << "x" << n << "x" << k << ": predicted " << predicted_s * 1e6 << " us, measured "
                << measured_s * 1e6 << " us");
    // Every shape within 12 % (the 2048^3 square, 16 us, is the farthest); the full-size Llama
    // GEMMs, at least 4096 on every side, within 5 %.
    const bool large = m >= 4096 && n >= 4096 && k >= 4096;
    CHECK(std::abs(error) < (large ? 0.05 : 0.12));
    signed_sum += error;
    ++checked;
  }
  CHECK(checked == 28);  // 14 shapes, two dtypes
  // No systematic sign: the mean signed error of the 28 within 3 %.
  CHECK(std::abs(signed_sum / checked) < 0.03);
}
