// `clearfog gemm` prices every data type through one kernel selection: integer types go through the
// low-precision model as wXaY does, so on a SIMD part int8 runs at what its int8 kernels reach
// (ULPPACK paper: W3A3 beats them) and not at the multiplier's peak (issue 16, item 4).
#include <catch2/catch.hpp>
#include <fmt/format.h>

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

namespace {

std::string gemm_text(const std::string& accelerator, const std::string& dtype, int size) {
  const auto out = test::run_cli(fmt::format("gemm --accelerator {} --dtype {} --m {} --n {} --k {}", accelerator,
                                             dtype, size, size, size),
                                 false);
  REQUIRE(out.exit_code == 0);
  return out.output;
}

std::size_t lines_starting(const std::string& text, const std::string& label) {
  std::size_t n = 0;
  for (auto at = text.find("\n  " + label); at != std::string::npos; at = text.find("\n  " + label, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("cli gemm: an integer GEMM prints its time and throughput once, in OP/s", "[cli][kernels]") {
  const std::string a100 = std::string(CLEARFOG_SOURCE_DIR) + "/platforms/accelerators/a100-sxm4-80gb.yaml";
  for (const auto* dtype : {"int8", "w3a3", "int4"}) {
    INFO(dtype);
    const auto text = gemm_text(a100, dtype, 4096);
    CHECK(lines_starting(text, "time ") == 1);
    CHECK(lines_starting(text, "throughput ") == 1);
    // Integer multiply-adds are operations, not floating-point ones, whichever unit runs them.
    CHECK(text.find("FLOP/s") == std::string::npos);
    CHECK(text.find("TOP/s peak") != std::string::npos);
  }
  const auto bf16 = gemm_text(a100, "bf16", 4096);
  CHECK(lines_starting(bf16, "time ") == 1);
  CHECK(bf16.find("TFLOP/s peak") != std::string::npos);
}

TEST_CASE("cli gemm: the accumulation count printed is the one the time model runs", "[cli][kernels]") {
  // Dense ULPPACK at W2A2: p = 3 * 3 = 9, so the guard bits allow floor(255 / (2 * 9)) = 14 local
  // multiply-accumulates (docs/compute-model.md); the port's kernels unroll at most 8, and 8 is
  // what the time model counts (8 + 16/(2*8) = 9 datapath bits per MAC).
  const auto out = test::run_cli("gemm --accelerator " + kCortex + " --dtype w2a2 --m 512 --n 512 --k 512", false);
  REQUIRE(out.exit_code == 0);
  CHECK(out.output.find("ULPPACK, dense scheme") != std::string::npos);
  CHECK(out.output.find("8 local accumulations before an extraction (the guard bits allow 14") != std::string::npos);
  CHECK(out.output.find("14 local accumulations") == std::string::npos);
  const auto j = gemm_json(kCortex, "w2a2");
  CHECK(j["local_accumulations"].get<long long>() == 255 / (2 * 9));
  CHECK(j["accumulations_per_extraction"].get<long long>() == 8);
  // W3A3 dense: floor(255 / (2 * 49)) = 2, under the port's limit: one count, as before.
  const auto w3 = test::run_cli("gemm --accelerator " + kCortex + " --dtype w3a3 --m 512 --n 512 --k 512", false);
  CHECK(w3.output.find("2 local accumulations before an extraction\n") != std::string::npos);
}
