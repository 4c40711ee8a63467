// FSDP2 as torchtitan runs it, against its A100 table (shared/reference/torchtitan_h100.md, section 3:
// pytorch/torchtitan docs/performance.md, 64 A100 80GB, FSDP degree 64, bf16, no compile). The rows
// whose activation checkpointing clearfog can express (none, full, or per op); published figures restated from
// the reference file. docs/validation.md says where the simulator is fast and why: each within 20 %
// (the 70B row at local batch 1, 25 %); the goal is 10 % with no sign.
#include <catch2/catch.hpp>

#include <string>

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

double predicted_tps(const Row& row) {
  const auto scenario = config::load_scenario(
      std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/torchtitan-a100-fsdp2.yaml",
      {{"workload", std::string(CLEARFOG_SOURCE_DIR) + "/workloads/" + row.workload},
       {"training.micro_batch", std::to_string(row.local_batch)},
       {"training.global_batch", std::to_string(64 * row.local_batch)},
       {"training.recompute", row.recompute}});
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
    CHECK(predicted == Approx(row.published_tps).epsilon(0.20));
  }
}

TEST_CASE("validation::torchtitan FSDP2 on 64 A100 80GB: Llama 2 70B at local batch 1 with per-op checkpointing",
          "[validation][simulation]") {
  // 355 tokens/s/GPU, 50.8 % MFU: no faster than full checkpointing at batch 2, where the model
  // finds per-op checkpointing 20 % faster. The row is the table's one whose FSDP traffic is not
  // hidden by a long backward: the model hides it on the assumed HDR NIC per GPU (the file names no
  // network) and is 4.8 % fast at a quarter of that bandwidth (docs/validation.md). Within 25 %.
  const double predicted = predicted_tps({"llama-2-70b.yaml", 1, "op", 355});
  CHECK(predicted == Approx(355).epsilon(0.25));
}
