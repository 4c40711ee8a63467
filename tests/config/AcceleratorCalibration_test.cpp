// Which efficiencies a run leans on without a measurement (config/AcceleratorCalibration.hpp): a
// GEMM dtype without its own calibrated efficiency, defaults, values the file gives but no
// measurement backs; and the shipped files' calibrated values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "config/AcceleratorCalibration.hpp"
#include "config/ConfigLoader.hpp"

using namespace clearfog;
using config::CalibrationUse;
using config::UncalibratedValue;

namespace {

config::AcceleratorSpec shipped(const std::string& file) {
  return config::load_accelerator(std::filesystem::path(CLEARFOG_SOURCE_DIR) / "platforms/accelerators" / file);
}

bool flags(const std::vector<UncalibratedValue>& gaps, const std::string& key) {
  return std::any_of(gaps.begin(), gaps.end(), [&](const UncalibratedValue& u) { return u.key == key; });
}

/// A part with every efficiency given; `calibrated` says which the file backs with a measurement.
config::AcceleratorSpec part(std::initializer_list<std::string> calibrated) {
  config::AcceleratorSpec a;
  a.name = "part";
  a.peak_flops = {{DType::bf16, 1e15}, {DType::fp8, 2e15}};
  a.gemm_dtype_efficiency = {{DType::bf16, 0.8}};
  a.sram_shared_B = 50e6;
  a.sram_shared_bandwidth_Bps = 10e12;
  a.launch_overhead_s = 4e-6;
  a.given_efficiencies = {"gemm.efficiency", "gemm.dtype_efficiency.bf16", "memory.efficiency",
                          "sram.shared_bandwidth", "kernel.launch_overhead"};
  for (const auto& key : calibrated) a.calibrated[key] = "a measurement";
  return a;
}

}  // namespace

TEST_CASE("config::uncalibrated_values: what a run uses without a measurement", "[config]") {
  const auto all = part({"gemm.dtype_efficiency.bf16", "memory.efficiency", "sram.shared_bandwidth",
                         "kernel.launch_overhead", "memory.random_access_efficiency"});
  CHECK(config::uncalibrated_values(all, CalibrationUse{{DType::bf16}, true}).empty());
  // fp8 has no efficiency of its own: the fallback is never a measurement of fp8.
  const auto fp8 = config::uncalibrated_values(all, CalibrationUse{{DType::fp8}, false});
  REQUIRE(fp8.size() == 1);
  CHECK(fp8[0].key == "gemm.dtype_efficiency.fp8");
  CHECK(fp8[0].why.find("falls back to gemm.efficiency") != std::string::npos);
  // Given but backed by nothing, or not given at all.
  const auto none = config::uncalibrated_values(part({}), CalibrationUse{{DType::bf16}, true});
  for (const char* key : {"gemm.dtype_efficiency.bf16", "memory.efficiency", "sram.shared_bandwidth",
                          "kernel.launch_overhead", "memory.random_access_efficiency"})
    CHECK(flags(none, key));
  CHECK(!flags(config::uncalibrated_values(part({}), CalibrationUse{{DType::bf16}, false}),
               "memory.random_access_efficiency"));  // no gathers, no question
}

TEST_CASE("config::uncalibrated_values: the shipped GPUs' measured values are calibrated", "[config]") {
  // A100 80GB: every efficiency of a bf16 transformer or a DLRM is backed by a measurement.
  CHECK(config::uncalibrated_values(shipped("a100-sxm4-80gb.yaml"), CalibrationUse{{DType::bf16}, true}).empty());
  // H100: GEMMs in bf16 and fp8 and the launch are (measured on an H200, the same die); the memory
  // fractions and the L2 are not yet.
  const auto h100 = config::uncalibrated_values(shipped("h100-sxm5.yaml"), CalibrationUse{{DType::bf16, DType::fp8}, false});
  CHECK(!flags(h100, "gemm.dtype_efficiency.bf16"));
  CHECK(!flags(h100, "gemm.dtype_efficiency.fp8"));
  CHECK(flags(h100, "memory.efficiency"));
  CHECK(flags(h100, "sram.shared_bandwidth"));
  CHECK(!flags(h100, "kernel.launch_overhead"));
  CHECK(!flags(h100, "gemm.fixed_overhead"));
  CHECK(flags(h100, "memory.in_place_efficiency"));  // the H200's ratio to the copy rate, carried over
  // V100: GEMMs (DeepBench) and copies measured; the L2 (measured on a V100 PCIe) and what was
  // carried over from the A100 say so.
  const auto v100 = config::uncalibrated_values(shipped("v100-sxm2.yaml"), CalibrationUse{{DType::fp16}, true});
  for (const char* key : {"gemm.dtype_efficiency.fp16", "memory.efficiency"}) CHECK(!flags(v100, key));
  for (const char* key : {"sram.shared_bandwidth", "memory.in_place_efficiency", "memory.random_access_efficiency",
                          "kernel.launch_overhead"})
    CHECK(flags(v100, key));
}

TEST_CASE("config::calibratable_accelerator_keys: every key has a calibrated.<key> twin", "[config]") {
  const auto& keys = config::calibratable_accelerator_keys();
  CHECK(std::find(keys.begin(), keys.end(), "gemm.dtype_efficiency.fp8") != keys.end());
  // A file may name a measurement for each: loading one that does must keep it.
  const auto a100 = shipped("a100-sxm4-80gb.yaml");
  CHECK(a100.calibrated.count("gemm.dtype_efficiency.fp16") == 1);
  CHECK(a100.gemm_efficiency_of(DType::tf32) == a100.gemm_efficiency);  // the fallback
  CHECK(shipped("h100-sxm5.yaml").gemm_efficiency_of(DType::fp8) < shipped("h100-sxm5.yaml").gemm_efficiency_of(DType::bf16));
}
