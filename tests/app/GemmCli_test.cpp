// `clearfog gemm` prices every data type through one kernel selection: integer types go through the
// low-precision model as wXaY does, so on a SIMD part int8 runs at what its int8 kernels reach
// (ULPPACK paper: W3A3 beats them) and not at the multiplier's peak (issue 16, item 4).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "config/ConfigLoader.hpp"
#include "kernels/LowPrecisionGemmModel.hpp"
#include "support/RunCli.hpp"

using namespace clearfog;

namespace {

const std::string kCortex = std::string(CLEARFOG_SOURCE_DIR) + "/platforms/accelerators/cortex-a72.yaml";

nlohmann::json gemm_json(const std::string& accelerator, const std::string& dtype) {
  const auto out =
      test::run_cli("gemm --accelerator " + accelerator + " --dtype " + dtype + " --m 512 --n 512 --k 512 --format json",
                    false);
  REQUIRE(out.exit_code == 0);
  return nlohmann::json::parse(out.output);
}

}  // namespace

TEST_CASE("cli gemm: int8 on a Cortex-A72 takes the int8 kernels, and W3A3 beats it as in ULPPACK", "[cli][kernels]") {
  const auto int8 = gemm_json(kCortex, "int8");
  const auto w3a3 = gemm_json(kCortex, "w3a3");
  // The same selection as the comparison's own int8 baselines: the fastest of them.
  const kernels::LowPrecisionGemmModel model(config::load_accelerator(kCortex));
  const auto est = model.estimate(kernels::GemmShape{512, 512, 512, 1}, kernels::BitWidths{3, 3});
  const double qnnpack_s = est.find(kernels::LowPrecisionMethod::Int8Qnnpack)->time_s;
  const double gemmlowp_s = est.find(kernels::LowPrecisionMethod::Int8Gemmlowp)->time_s;
  CHECK(int8["time_s"].get<double>() == Approx(std::min(qnnpack_s, gemmlowp_s)).epsilon(1e-12));
  // Below the 0.096 TOP/s multiplier peak: ULPPACK's int8 baselines run at 0.032-0.038 TOP/s.
  CHECK(int8["tops"].get<double>() < 0.5 * 0.096);
  // Won et al. (shared/reference/ulppack.md): W3A3 with ULPPACK is 1.8x QNNPACK's int8.
  CHECK(int8["time_s"].get<double>() / w3a3["time_s"].get<double>() > 1.4);
}

TEST_CASE("cli gemm: int8 on a matrix unit is still its tensor-core int8", "[cli][kernels]") {
  const auto a100 = gemm_json(std::string(CLEARFOG_SOURCE_DIR) + "/platforms/accelerators/a100-sxm4-80gb.yaml", "int8");
  CHECK(a100["method"].get<std::string>() == "native int8");
}
