// FSDP2 as torchtitan runs it, against its A100 table (shared/reference/torchtitan_h100.md, section 3:
// pytorch/torchtitan docs/performance.md, 64 A100 80GB, FSDP degree 64, bf16, no compile). The rows
// whose activation checkpointing clearfog can express (none, full, or per op); published figures restated from
// the reference file. docs/validation.md says where the simulator is fast and why: five rows within
// 15 %, all fast; the goal is 10 % with no sign. The sixth row's error is its network's, which the
// file does not name: checked at the assumed NIC and at a quarter of it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"

using namespace clearfog;

namespace {

struct Row {
  std::string workload;
  int local_batch;
  std::string recompute;
  double published_tps;  // tokens per second per GPU, as the file gives them
};

double predicted_tps(const Row& row, std::vector<config::Override> extra = {}) {
  extra.push_back({"workload", std::string(CLEARFOG_SOURCE_DIR) + "/workloads/" + row.workload});
  extra.push_back({"training.micro_batch", std::to_string(row.local_batch)});
  extra.push_back({"training.global_batch", std::to_string(64 * row.local_batch)});
  extra.push_back({"training.recompute", row.recompute});
  const auto scenario = config::load_scenario(
      std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/torchtitan-a100-fsdp2.yaml", extra);
  return std::stod(engine::run_forked(
             [&] { return std::to_string(driver::run_scenario(scenario).metrics.tokens_per_s); })) /
         64;
}

}  // namespace

TEST_CASE("validation::torchtitan FSDP2 on 64 A100 80GB, the rows clearfog can express", "[validation][simulation]") {
  const Row rows[] = {{"llama-2-13b.yaml", 2, "none", 2162},  // no activation checkpointing: 61.1 % MFU
                      {"llama-2-70b.yaml", 2, "full", 353},   // full: 50.5 % MFU
                      {"llama-3-70b.yaml", 1, "full", 331},   // full: 51.7 % MFU
                      {"llama-3-8b.yaml", 1, "op", 2973},     // selective op: 58.2 % MFU
                      {"llama-2-13b.yaml", 2, "op", 1904}};   // selective op: 53.8 % MFU
  for (const auto& row : rows) {
    INFO(row.workload << " local batch " << row.local_batch << ", recompute " << row.recompute);
    const double predicted = predicted_tps(row);
    CHECK(predicted == Approx(row.published_tps).epsilon(0.15));
    CHECK(predicted > row.published_tps);
  }
}

TEST_CASE("validation::torchtitan FSDP2 on 64 A100 80GB: Llama 2 70B at local batch 1 is bound by its network",
          "[validation][simulation]") {
  // 50.8 % MFU with per-op checkpointing at local batch 1, no faster per token than full
  // checkpointing at batch 2: its FSDP traffic is the most exposed of the table (each step gathers
  // the 70B parameters twice and reduce-scatters their fp32 gradients, whatever the batch), on a
  // network the file does not name. On the assumed one HDR NIC a GPU (24 GB/s) the gathers hide and
  // the row is fast; at a quarter of that they no longer hide, and the published figure follows.
  const Row row{"llama-2-70b.yaml", 1, "op", 355};
  CHECK(predicted_tps(row) == Approx(row.published_tps).epsilon(0.25));
  CHECK(predicted_tps(row, {{"platform.fabric.nic.bandwidth", "6 GB/s"}}) == Approx(row.published_tps).epsilon(0.05));
}
