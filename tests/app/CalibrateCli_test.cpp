// `clearfog calibrate` end to end: fits a sample of measurements, writes an accelerator file that
// loads, and the written file's model reproduces the GEMM rows it was fitted to.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "config/ConfigLoader.hpp"
#include "kernels/AcceleratorFit.hpp"
#include "support/RunCli.hpp"

using namespace clearfog;

TEST_CASE("cli calibrate: fits, reports and writes a loadable accelerator file", "[cli]") {
  const std::string csv = std::string(CLEARFOG_TEST_DATA_DIR) + "/calibration/h100-sample.csv";
  const auto out = std::filesystem::temp_directory_path() / "clearfog-calibrate-test.yaml";
  std::filesystem::remove(out);
  const auto r = test::run_cli("calibrate --measurements " + csv + " --accelerator " + std::string(CLEARFOG_SOURCE_DIR) +
                               "/platforms/accelerators/h100-sxm5.yaml --out " + out.string());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("gemm.dtype_efficiency.bf16") && Catch::Contains("memory.efficiency") &&
                           Catch::Contains("kernel.launch_overhead") && Catch::Contains("attention cudnn fwd"));
  const auto fitted = config::load_accelerator(out);
  CHECK(fitted.calibrated.count("gemm.dtype_efficiency.bf16") == 1);
  // The attention row names its kernel: that kernel's forward share is fitted and written.
  CHECK(fitted.calibrated.count("attention.cudnn.forward_share") == 1);
  for (const auto& row : kernels::read_kernel_measurements(csv).rows)
    if (row.kind == kernels::MeasurementKind::Gemm)
      CHECK(kernels::predicted_time_s(fitted, row) == Approx(row.time_s).epsilon(0.05));
  std::filesystem::remove(out);
}
