// Every accelerator, platform, workload and scenario shipped in the repository loads, and yields the
// figures its file states, in SI units. Expected values are written from the spec sheet's text
// (shared/reference/hardware_specs.md) and the papers the workload files cite.
#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "topology/NodeTopologyType.hpp"
#include "topology/nodes/PcieTreeNode.hpp"
#include "topology/nodes/TorusNode.hpp"
#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"
#include "support/TestPlatforms.hpp"

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
      // Sweep, comparison and cluster files are read by `clearfog sweep` / `compare` / `cluster`,
      // tested in tests/sweep (and the tutorials' in tests/tutorials).
      const auto kind = YAML::LoadFile(entry.path().string())["kind"];
      if (kind && (kind.as<std::string>() == "sweep" || kind.as<std::string>() == "compare" ||
                   kind.as<std::string>() == "cluster"))
        continue;
      INFO(entry.path().string());
      try {
        validate_file(entry.path());
      } catch (const ConfigError& e) {
        FAIL(e.what());
      }
      ++files;
    }
  CHECK(files >= 16);  // 3+ accelerators, 8 platforms, 4 workloads, 1 scenario
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
    CHECK(a.int4_peak_ops == Approx(1248 * kTera));
    CHECK(a.gemm_tiles.size() == 4);
    CHECK(a.gemm_tiles.front() == TileShape{256, 128});
    CHECK(a.gemm_efficiency == Approx(256.5 / 312).epsilon(0.001));  // cuBLAS at 16384^3
    // Korthikanti Table 4: the attention core (1.795 GB per layer, 4 kernels of 4.5 us launch)
    // takes 13.2 - 11.9 = 1.3 ms, as a fraction of the 2039 GB/s datasheet bandwidth.
    CHECK(a.memory_efficiency == Approx(1.795e9 / (1.3e-3 - 4 * 4.5e-6) / 2039e9).epsilon(0.01));
    CHECK(a.launch_overhead_s == Approx(4.5e-6));
    CHECK(a.sram_shared_bandwidth_Bps == Approx(5 * kTera));
    CHECK(a.simd_width_bits == 0);
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

TEST_CASE("config::Loader: shipped non-GPU accelerators carry their stated figures", "[config]") {
  SECTION("TPU v4: 8 MXUs of 128x128 at 1.05 GHz give 275 TFLOP/s bf16") {
    const auto a = load_accelerator(shipped("platforms/accelerators/tpu-v4.yaml"));
    CHECK(a.compute_units == 8);
    CHECK(a.peak(DType::bf16) == Approx(275 * kTera));
    CHECK(a.peak(DType::bf16) == Approx(8 * 128 * 128 * 2 * a.clock_Hz).epsilon(0.01));
    CHECK(a.memory_capacity_B == Approx(32.0 * 1024 * 1024 * 1024));  // 32 GiB
    CHECK(a.memory_bandwidth_Bps == Approx(1200 * kGiga));
    CHECK(a.gemm_tiles == std::vector<TileShape>{{128, 128}});
  }
  SECTION("GC200 IPU: 1472 tiles, 900 MB on chip, 250 TFLOP/s fp16") {
    const auto a = load_accelerator(shipped("platforms/accelerators/ipu-gc200.yaml"));
    CHECK(a.compute_units == 1472);
    CHECK(a.peak(DType::fp16) == Approx(250 * kTera));
    CHECK(a.sram_shared_B == Approx(900e6));
  }
  SECTION("WSE-2: 40 GB of SRAM at 20 PB/s") {
    const auto a = load_accelerator(shipped("platforms/accelerators/wse2.yaml"));
    CHECK(a.compute_units == 850000);
    CHECK(a.sram_shared_B == Approx(40 * kGiga));
    CHECK(a.sram_shared_bandwidth_Bps == Approx(20e15));
  }
  SECTION("Cortex-A72: peaks derived from NEON issue rates") {
    const auto a = load_accelerator(shipped("platforms/accelerators/cortex-a72.yaml"));
    CHECK(a.compute_units == 4);
    CHECK(a.simd_width_bits == 128);
    // fp32: one 4-lane FMLA (8 FLOP) per cycle; int8: one 8-lane UMLAL (16 OP) per cycle.
    CHECK(a.peak(DType::fp32) == Approx(4 * a.clock_Hz * 8));
    CHECK(a.peak(DType::int8) == Approx(4 * a.clock_Hz * 16));
  }
}

TEST_CASE("config::Loader: shipped platforms join 8 GPUs through a switch", "[config]") {
  SECTION("DGX A100") {
    const auto p = load_platform(shipped("platforms/dgx-a100.yaml"));
    CHECK(p.accelerator.name == "NVIDIA A100 SXM4 80GB");
    CHECK(p.device_count() == 8);
    CHECK(p.fabric.nodes == 1);
    CHECK(p.node.topology == clearfog::topology::node_topology("switch"));
    CHECK(p.node.link.bandwidth_Bps == Approx(300 * kGiga));  // NVLink3, per direction
    CHECK(p.node.link.latency_s == Approx(1e-6));
    CHECK_FALSE(p.node.in_switch_reduction);
    // The nccl-tests fit of docs/validation.md: NCCL's three protocols, as written in the file.
    CHECK(p.collectives.simple.efficiency == Approx(0.772));
    CHECK(p.collectives.simple.step_overhead_s == Approx(14e-6));
    CHECK(p.collectives.ll.efficiency == Approx(0.50));
    CHECK(p.collectives.ll.step_overhead_s == Approx(1e-6));
    CHECK(p.collectives.ll128.efficiency == Approx(0.415));
    CHECK(p.collectives.arch == GpuArch::Ampere);
  }
  SECTION("DGX H100") {
    const auto p = load_platform(shipped("platforms/dgx-h100.yaml"));
    CHECK(p.accelerator.name == "NVIDIA H100 SXM5 80GB");
    CHECK(p.device_count() == 8);
    CHECK(p.node.link.bandwidth_Bps == Approx(450 * kGiga));  // NVLink4, per direction
    CHECK(p.node.in_switch_reduction);                        // NVLS
    CHECK(p.collectives.arch == GpuArch::Hopper);
    CHECK(p.collectives.in_switch_efficiency == Approx(0.62));
  }
}

TEST_CASE("config::Loader: shipped platforms of other node topologies", "[config]") {
  SECTION("DGX-1: hybrid cube-mesh of NVLink2 bricks") {
    const auto p = load_platform(shipped("platforms/dgx1-v100.yaml"));
    CHECK(p.accelerator.name == "NVIDIA V100 SXM2 32GB");
    CHECK(p.node.topology == clearfog::topology::node_topology("hybrid-cube-mesh"));
    CHECK(p.device_count() == 8);
    CHECK(p.node.link.bandwidth_Bps == Approx(150 * kGiga / 6));  // 150 GB/s over 6 bricks
  }
  SECTION("PCIe Gen4 server: 8 GPUs under 2 switches") {
    const auto p = load_platform(shipped("platforms/pcie-gen4-8gpu.yaml"));
    CHECK(p.accelerator.name == "NVIDIA A100 SXM4 80GB");
    CHECK(p.node.topology == clearfog::topology::node_topology("pcie-tree"));
    CHECK(p.node.devices == 8);
    CHECK(p.node.params_as<topology::nodes::PcieTreeParams>().switches == 2);
    CHECK(p.node.link.bandwidth_Bps == Approx(31.5 * kGiga));  // Gen4 x16, per direction
    CHECK(p.node.params_as<topology::nodes::PcieTreeParams>().uplink.bandwidth_Bps == Approx(31.5 * kGiga));
    CHECK_FALSE(p.node.in_switch_reduction);
  }
  SECTION("IPU-POD16: a ring of 16 IPUs") {
    const auto p = load_platform(shipped("platforms/ipu-pod16.yaml"));
    CHECK(p.node.topology == clearfog::topology::node_topology("ring"));
    CHECK(p.node.devices == 16);
    CHECK(p.node.link.bandwidth_Bps == Approx(320 * kGiga / 2 / 2));  // per IPU, 2 directions, 2 neighbours
  }
  SECTION("TPU v4 4x4x4: a 3D torus of 64 chips") {
    const auto p = load_platform(shipped("platforms/tpu-v4-4x4x4.yaml"));
    CHECK(p.accelerator.name == "Google TPU v4");
    CHECK(p.node.topology == clearfog::topology::node_topology("torus"));
    CHECK(p.node.params_as<topology::nodes::GridParams>().dims == std::vector<int>{4, 4, 4});
    CHECK(p.node.devices == 4 * 4 * 4);
    // 1.1 PB/s pod all-reduce bandwidth / 4096 chips / 6 links, rounded to 45 GB/s.
    CHECK(p.node.link.bandwidth_Bps == Approx(1.1e15 / 4096 / 6).epsilon(0.01));
  }
}

TEST_CASE("config::Loader: shipped clusters join DGX nodes by a rail-optimized fat tree", "[config]") {
  SECTION("DGX A100 cluster: HDR") {
    const auto p = load_platform(shipped("platforms/dgx-a100-cluster.yaml"));
    CHECK(p.fabric.nodes == 32);
    CHECK(p.device_count() == 32 * 8);
    CHECK(p.fabric.topology == FabricTopology::FatTree);
    CHECK(p.fabric.nic_count == 8);
    CHECK(p.fabric.nic.bandwidth_Bps == Approx(24 * kGiga));  // usable of HDR's 25 GB/s (nccl #412)
    CHECK(p.fabric.rail_optimized);
    CHECK(p.fabric.fat_tree_down == std::vector<int>{16, 2});
    CHECK(p.fabric.fat_tree_down[0] * p.fabric.fat_tree_down[1] == p.fabric.nodes);
    CHECK(p.fabric.fat_tree_up == std::vector<int>{1, 16});
    CHECK(p.fabric.fat_tree_parallel == std::vector<int>{1, 1});
    // Derived from fabric.nodes alone: 16 nodes per leaf under 16 spines; links carry the 8 rails.
    CHECK(p.fabric.link.bandwidth_Bps == Approx(8 * 24 * kGiga));
    CHECK(p.collectives.simple.efficiency == 1.0);
    CHECK(p.collectives.intra_simple.efficiency == Approx(0.772));
  }
  SECTION("DGX H100 cluster: NDR") {
    const auto p = load_platform(shipped("platforms/dgx-h100-cluster.yaml"));
    CHECK(p.device_count() == 32 * 8);
    CHECK(p.node.in_switch_reduction);
    CHECK(p.fabric.nic_count == 8);
    CHECK(p.fabric.nic.bandwidth_Bps == Approx(48 * kGiga));  // 48-49 GB/s per NDR NIC (moe_alltoall.md)
    // Rail planes folded into one tree: each fabric link carries the node's 8 rails.
    CHECK(p.fabric.link.bandwidth_Bps == Approx(p.fabric.nic_count * p.fabric.nic.bandwidth_Bps));
    CHECK_FALSE(p.fabric.in_network_reduction);
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
    const auto loaded = load_workload(shipped(s.file));
    const auto& w = test::transformer(loaded);
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

TEST_CASE("config::Loader: shipped platform names cite their counts, so a --set renames the platform", "[config]") {
  // A count written into a name goes stale under --set (a "32 nodes" cluster run on 8 nodes): every
  // node, device, NIC or switch count in a shipped name is a {key} (platform key `name`).
  const std::regex written_count(R"((^|[ (])\d+ ?(x |nodes?\b|chips\b|NICs?\b|PCIe switch))");
  int platforms = 0;
  for (const auto& entry : std::filesystem::directory_iterator(shipped("platforms"))) {
    if (entry.path().extension() != ".yaml") continue;
    const auto name = YAML::LoadFile(entry.path().string())["name"].as<std::string>();
    INFO(entry.path().filename().string() << ": " << name);
    CHECK_FALSE(std::regex_search(name, written_count));
    ++platforms;
  }
  CHECK(platforms > 10);
  // The cluster of the issue: 32 nodes in its file, run on 2.
  const auto file = shipped("platforms/dgx-h100-cluster.yaml");
  CHECK(load_platform(file).name.find("(32 nodes,") != std::string::npos);
  const auto two = load_platform(file, {parse_override("fabric.nodes=2")});
  CHECK(two.name.find("(2 nodes,") != std::string::npos);
  CHECK(two.name.find("32") == std::string::npos);
}
