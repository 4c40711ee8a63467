#include "config/AcceleratorCalibration.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "config/ScenarioSpec.hpp"
#include "config/WorkloadTypeSchema.hpp"

namespace clearfog::config {
namespace {

bool given(const AcceleratorSpec& a, const std::string& key) {
  return std::find(a.given_efficiencies.begin(), a.given_efficiencies.end(), key) != a.given_efficiencies.end();
}

/// Why `key` (whose value reads `value`) is not calibrated, or "" when it is.
std::string why_uncalibrated(const AcceleratorSpec& a, const std::string& key, const std::string& value) {
  if (a.calibrated.count(key) != 0) return "";
  if (!given(a, key)) return fmt::format("the default {}", value);
  return fmt::format("{}, which no measurement backs", value);
}

std::string gemm_why(const AcceleratorSpec& a, DType d) {
  const std::string key = "gemm.dtype_efficiency." + std::string(dtype_name(d));
  if (a.gemm_dtype_efficiency.count(d) != 0) return why_uncalibrated(a, key, fmt::format("{:g}", a.gemm_efficiency_of(d)));
  return fmt::format("falls back to gemm.efficiency = {:g}, measured in no particular dtype", a.gemm_efficiency);
}

}  // namespace

const std::vector<std::string>& calibratable_accelerator_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"gemm.efficiency"};
    for (DType d : kAllDTypes) k.push_back("gemm.dtype_efficiency." + std::string(dtype_name(d)));
    for (const char* key : {"memory.efficiency", "memory.in_place_efficiency", "memory.random_access_efficiency", "sram.shared_bandwidth",
                            "kernel.launch_overhead", "gemm.fixed_overhead"})
      k.emplace_back(key);
    for (const auto& info : kAttentionKernels)
      for (const bool backward : {false, true}) k.push_back(attention_share_key(info.kernel, backward));
    return k;
  }();
  return keys;
}

std::vector<UncalibratedValue> uncalibrated_values(const AcceleratorSpec& a, const CalibrationUse& use) {
  std::vector<UncalibratedValue> out;
  const auto add = [&](std::string key, std::string why) {
    if (!why.empty()) out.push_back({a.name, std::move(key), std::move(why)});
  };
  for (DType d : use.gemm_dtypes)
    if (a.supports(d)) add("gemm.dtype_efficiency." + std::string(dtype_name(d)), gemm_why(a, d));
  add("memory.efficiency", why_uncalibrated(a, "memory.efficiency", fmt::format("{:g}", a.memory_efficiency)));
  if (given(a, "memory.in_place_efficiency"))
    add("memory.in_place_efficiency",
        why_uncalibrated(a, "memory.in_place_efficiency", fmt::format("{:g}", a.in_place_efficiency)));
  if (use.gathers)
    add("memory.random_access_efficiency",
        why_uncalibrated(a, "memory.random_access_efficiency", fmt::format("{:g}", a.random_access_efficiency)));
  if (a.sram_shared_B > 0 && a.sram_shared_bandwidth_Bps > 0)
    add("sram.shared_bandwidth",
        why_uncalibrated(a, "sram.shared_bandwidth", fmt::format("{:g} TB/s", a.sram_shared_bandwidth_Bps / 1e12)));
  add("kernel.launch_overhead",
      why_uncalibrated(a, "kernel.launch_overhead", fmt::format("{:g} us", a.launch_overhead_s * 1e6)));
  if (use.attention_kernel)
    for (const bool backward : {false, true}) {
      const std::string key = attention_share_key(*use.attention_kernel, backward);
      add(key, why_uncalibrated(a, key, fmt::format("{:g} of the GEMM efficiency",
                                                    a.attention_share(*use.attention_kernel, backward))));
    }
  // Flagged only where a file gives it: 0, the default, is what every file had before the key.
  if (given(a, "gemm.fixed_overhead"))
    add("gemm.fixed_overhead", why_uncalibrated(a, "gemm.fixed_overhead", fmt::format("{:g} us", a.gemm_fixed_s * 1e6)));
  return out;
}

std::vector<UncalibratedValue> uncalibrated_values(const ScenarioSpec& scenario) {
  CalibrationUse use;
  use.gemm_dtypes = {scenario.training.precision};
  if (scenario.training.precision == DType::fp8) use.gemm_dtypes.push_back(DType::bf16);
  const auto traits = workload_traits(scenario.workload.type);
  use.gathers = traits.embedding_tables;
  if (traits.attention && scenario.training.attention == Attention::Fused)
    use.attention_kernel = scenario.training.attention_kernel;
  auto out = uncalibrated_values(scenario.platform.accelerator, use);
  if (const auto& mixed = scenario.platform.mixed) {
    auto more = uncalibrated_values(mixed->accelerator, use);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

}  // namespace clearfog::config
