// Every accelerator, platform, workload and scenario shipped in the repository loads, and yields the
// figures its file states, in SI units. Expected values are written from the spec sheet's text
// (shared/reference/hardware_specs.md) and the papers the workload files cite.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"

using namespace clearfog;
using namespace clearfog::config;

namespace {

std::filesystem::path shipped(const std::string& relative) {
  return std::filesystem::path(CLEARFOG_SOURCE_DIR) / relative;
}

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;
constexpr double kKiB = 1024.0;

}  // namespace

TEST_CASE("config::Loader: every shipped YAML file validates", "[config]") {
  int files = 0;
  for (const char* folder : {"platforms", "workloads", "scenarios"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(shipped(folder))) {
      if (entry.path().extension() != ".yaml") continue;
      INFO(entry.path().string());
      try {
        validate_file(entry.path());
      } catch (const ConfigError& e) {
        FAIL(e.what());
      }
      ++files;
    }
  CHECK(files >= 10);  // 3 accelerators, 2 platforms, 4 workloads, 1 scenario
}

TEST_CASE("config::Loader: shipped accelerators carry their datasheet figures", "[config]") {
  SECTION("A100 SXM4 80GB") {
    const auto a = load_accelerator(shipped("platforms/accelerators/a100-sxm4-80gb.yaml"));
    CHECK(a.compute_units == 108);
    CHECK(a.clock_Hz == Approx(1410e6));
    CHECK(a.peak(DType::fp32) == Approx(19.5 * kTera));
    CHECK(a.peak(DType::tf32) == Approx(156 * kTera));
    CHECK(a.peak(DType::fp16) == Approx(312 * kTera));
    CHECK(a.peak(DType::bf16) == Approx(312 * kTera));
    CHECK(a.peak(DType::int8) == Approx(624 * kTera));
    CHECK_FALSE(a.supports(DType::fp8));
    CHECK(a.memory_capacity_B == Approx(80 * kGiga));
    CHECK(a.memory_bandwidth_Bps == Approx(2039 * kGiga));
    CHECK(a.sram_per_unit_B == 164 * kKiB);
    CHECK(a.sram_shared_B == Approx(40e6));
    CHECK(a.power_W == 400.0);
  }
  SECTION("H100 SXM5") {
    const auto a = load_accelerator(shipped("platforms/accelerators/h100-sxm5.yaml"));
    CHECK(a.compute_units == 132);
    CHECK(a.clock_Hz == Approx(1980e6));
    CHECK(a.peak(DType::fp32) == Approx(66.9 * kTera));
    CHECK(a.peak(DType::tf32) == Approx(494.7 * kTera));
    CHECK(a.peak(DType::bf16) == Approx(989.4 * kTera));
    CHECK(a.peak(DType::fp8) == Approx(1978.9 * kTera));
    CHECK(a.peak(DType::int8) == Approx(1978.9 * kTera));
    CHECK(a.memory_capacity_B == Approx(80 * kGiga));
    CHECK(a.memory_bandwidth_Bps == Approx(3.35 * kTera));
    CHECK(a.sram_per_unit_B == 228 * kKiB);
    CHECK(a.sram_shared_B == Approx(50e6));
    CHECK(a.power_W == 700.0);
  }
  SECTION("V100 SXM2") {
    const auto a = load_accelerator(shipped("platforms/accelerators/v100-sxm2.yaml"));
    CHECK(a.compute_units == 80);
    CHECK(a.clock_Hz == Approx(1530e6));
    CHECK(a.peak(DType::fp16) == Approx(125 * kTera));
    CHECK(a.peak(DType::fp32) == Approx(15.7 * kTera));
    CHECK_FALSE(a.supports(DType::bf16));  // "125 TFLOP/s (no BF16)"
    CHECK_FALSE(a.supports(DType::tf32));
    CHECK(a.memory_bandwidth_Bps == Approx(900 * kGiga));
    CHECK(a.sram_per_unit_B == 96 * kKiB);
    CHECK(a.sram_shared_B == Approx(6e6));
    CHECK(a.power_W == 300.0);
  }
}

TEST_CASE("config::Loader: shipped platforms join 8 GPUs through a switch", "[config]") {
  SECTION("DGX A100") {
    const auto p = load_platform(shipped("platforms/dgx-a100.yaml"));
    CHECK(p.accelerator.name == "NVIDIA A100 SXM4 80GB");
    CHECK(p.device_count() == 8);
    CHECK(p.node.topology == NodeTopology::Switch);
    CHECK(p.node.link.bandwidth_Bps == Approx(300 * kGiga));  // NVLink3, per direction
    CHECK(p.node.link.latency_s == Approx(1e-6));
  }
  SECTION("DGX H100") {
    const auto p = load_platform(shipped("platforms/dgx-h100.yaml"));
    CHECK(p.accelerator.name == "NVIDIA H100 SXM5 80GB");
    CHECK(p.device_count() == 8);
    CHECK(p.node.link.bandwidth_Bps == Approx(450 * kGiga));  // NVLink4, per direction
  }
}

TEST_CASE("config::Loader: shipped workloads have the published shapes", "[config]") {
  struct Shape {
    const char* file;
    int layers, hidden, heads;
  };
  const Shape shapes[] = {{"workloads/gpt-125m.yaml", 12, 768, 12},
                          {"workloads/gpt-1.3b.yaml", 24, 2048, 16},
                          {"workloads/gpt-7.5b.yaml", 36, 4096, 32},
                          {"workloads/gpt3-175b.yaml", 96, 12288, 96}};
  for (const auto& s : shapes) {
    INFO(s.file);
    const auto w = load_workload(shipped(s.file));
    CHECK(w.layers == s.layers);
    CHECK(w.hidden == s.hidden);
    CHECK(w.heads == s.heads);
    CHECK(w.ffn_hidden == 4 * s.hidden);
    CHECK(w.seq_length == 2048);
    CHECK(w.vocab_size == 51200);  // GPT-2's 50257 tokens padded to a multiple of 1024
  }
}

TEST_CASE("config::Loader: the quickstart scenario loads with its references", "[config]") {
  const auto path = shipped("scenarios/quickstart.yaml");
  const auto s = load_scenario(path);
  CHECK(s.name == "quickstart");
  CHECK(s.file == path.string());
  CHECK(s.platform.name.starts_with("DGX A100"));
  CHECK(s.workload.name == "GPT 1.3B");
  CHECK(s.training.global_batch == 64);
  CHECK(s.training.micro_batch == 2);
  CHECK(s.training.precision == DType::bf16);
  CHECK(s.training.optimizer == Optimizer::Adam);
  CHECK(s.training.bucket_size_B == Approx(25e6));
  CHECK(s.parallelism.dp == s.platform.device_count());
  CHECK(s.micro_batches_per_replica() == 64 / 8 / 2);
}
