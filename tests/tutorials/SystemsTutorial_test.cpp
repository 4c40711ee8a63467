// The answers of docs/tutorials/04-systems.md: GPT 1.3B on a DGX A100, a DGX H100, a TPU v4 slice, an
// IPU-POD16 and a CS-2 (scenarios/compare/gpt-1.3b.yaml), each with its best parallelism, asserted
// from the roofline reasoning the tutorial teaches, not from the program's output.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "config/ConfigLoader.hpp"
#include "compare/Compare.hpp"
#include "compare/CompareFile.hpp"

using namespace clearfog;

namespace {

const compare::PlatformResult& result_of(const std::vector<compare::PlatformResult>& results, const std::string& file) {
  for (const auto& r : results)
    if (r.platform_file.filename() == file) return r;
  FAIL("no result for " << file);
  return results.front();
}

config::AcceleratorSpec accelerator_of(const std::string& platform_file) {
  return config::load_platform(std::string(CLEARFOG_SOURCE_DIR) + "/platforms/" + platform_file).accelerator;
}

}  // namespace

TEST_CASE("tutorial 4: GPT 1.3B on five systems, each with its best parallelism", "[tutorials][simulation]") {
  auto request = compare::load_compare_file(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/compare/gpt-1.3b.yaml");
  request.jobs = 2;
  // The tutorial's recipe: only the layout and the micro-batch are searched.
  for (const auto& [knob, value] : {std::pair{"zero_stage", "0"}, std::pair{"recompute", "none"},
                                    std::pair{"sequence_parallel", "false"}, std::pair{"attention", "unfused"}})
    REQUIRE(request.search.restrict(knob, {value}).empty());
  request.memory_headroom = 0;
  const auto results = compare::compare_platforms(request);
  REQUIRE(results.size() == 5);
  for (const auto& r : results) {
    INFO(r.platform);
    CHECK(r.failed == 0);
    REQUIRE(!r.best.is_null());
  }
  const auto step_s = [&](const std::string& file) { return result_of(results, file).best["step_time_s"].get<double>(); };

  // Q1: the A100's step is about half compute-bound, half memory-bound kernels, so the H100's gain
  // lies between its memory-bandwidth ratio and its bf16 peak ratio.
  const auto a100 = accelerator_of("dgx-a100.yaml"), h100 = accelerator_of("dgx-h100.yaml");
  const double speedup = step_s("dgx-a100.yaml") / step_s("dgx-h100.yaml");
  CHECK(speedup > h100.memory_bandwidth_Bps / a100.memory_bandwidth_Bps);
  CHECK(speedup < h100.peak(DType::bf16) / a100.peak(DType::bf16));

  // Q3: no layout of 16 IPUs holds mixed-precision Adam's 16 bytes per parameter on chip.
  const auto& ipu = result_of(results, "ipu-pod16.yaml");
  const double parameters = ipu.best["parameters"].get<double>();
  CHECK(16 * parameters / ipu.devices > ipu.sram_B);
  CHECK(ipu.best["memory"]["total_B"].get<double>() > ipu.sram_B);

  // Q4: one wafer runs the whole model at micro-batch 1 on one device: its GEMMs (s x h by h x 4h
  // and smaller) fill a small share of its cores, so its MFU is below a GPU's that runs the same
  // model data-parallel with larger GEMMs per device.
  const auto& cs2 = result_of(results, "cs2-wse2.yaml");
  CHECK(cs2.devices == 1);
  CHECK(cs2.best["mfu"].get<double>() < result_of(results, "dgx-a100.yaml").best["mfu"].get<double>());
}
