// What a run's summary warns of: the accelerator efficiencies no measurement backs
// (docs/calibration.md; none on the calibrated A100 quickstart, every one it uses on the V100), and
// a plan that fits with less than 10 % of the device free.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <string>

#include "support/RunCli.hpp"

namespace {

using clearfog::test::run_cli;
const std::string kQuickstart = std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/quickstart.yaml";
const std::string kOnV100 = " --set platform=" + std::string(CLEARFOG_SOURCE_DIR) +
                            "/platforms/dgx1-v100.yaml --set training.precision=fp16";

}  // namespace

TEST_CASE("cli run: the summary flags the uncalibrated efficiencies a run uses", "[cli]") {
  const auto a100 = run_cli("run " + kQuickstart, false);
  REQUIRE(a100.exit_code == 0);
  CHECK(a100.output.find("uncalibrated") == std::string::npos);
  const auto a100_json = nlohmann::json::parse(run_cli("run " + kQuickstart + " --format json", false).output);
  CHECK(a100_json["simulation"]["accelerator_uncalibrated"].empty());

  const auto v100 = run_cli("run " + kQuickstart + kOnV100, false);
  REQUIRE(v100.exit_code == 0);
  // The V100 file's GEMMs and copies are measured (DeepBench, GPUInspector.jl); its L2 was measured
  // on a V100 PCIe, its in-place fraction and launch overhead are the A100's, carried over.
  CHECK_THAT(v100.output, Catch::Contains("uncalibrated            NVIDIA V100 SXM2 32GB memory.in_place_efficiency: "
                                          "0.69, which no measurement backs"));
  const auto json = nlohmann::json::parse(run_cli("run " + kQuickstart + kOnV100 + " --format json", false).output);
  std::vector<std::string> keys;
  for (const auto& gap : json["simulation"]["accelerator_uncalibrated"]) keys.push_back(gap["key"]);
  CHECK(keys == std::vector<std::string>{"memory.in_place_efficiency", "sram.shared_bandwidth", "kernel.launch_overhead"});
}

TEST_CASE("cli run: a plan that fits with less than 10 % of the device free is flagged", "[cli]") {
  // The quickstart at micro-batch 4 on devices sized around its own estimate: 20 % and 5 % free.
  const std::string at_mb4 = " --set training.micro_batch=4 --set training.global_batch=32 --format json";
  const double needs_B =
      nlohmann::json::parse(run_cli("run " + kQuickstart + at_mb4, false).output)["memory"]["total_B"];
  const auto on = [&](double capacity_B) {
    return nlohmann::json::parse(
        run_cli("run " + kQuickstart + at_mb4 +
                    fmt::format(" --set \"platform.accelerator.memory.capacity={:.0f} B\"", capacity_B),
                false)
            .output);
  };
  const auto roomy = on(needs_B / 0.8), tight = on(needs_B / 0.95);
  for (const auto* j : {&roomy, &tight}) {
    const double total = (*j)["memory"]["total_B"], capacity = (*j)["memory"]["capacity_B"];
    CHECK((*j)["memory"]["near_limit"] == (total <= capacity && total > 0.9 * capacity));
  }
  CHECK(roomy["memory"]["near_limit"] == false);
  CHECK(tight["memory"]["near_limit"] == true);
  CHECK(tight["memory"]["fits"] == true);
}
