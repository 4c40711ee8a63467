// torchtitan on H100 against its published tables (shared/reference/torchtitan_h100.md, section 1:
// pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md; H100 96GB HBM2e at a 500 W power
// limit, 8 per host). Nothing is fitted to these rows: the accelerator is the H200's measurement
// carried to a 500 W cap by the power model of platforms/accelerators/h100-96gb-500w.yaml, and the
// framework profile comes from torchtitan's code. Published figures restated from the reference
// file; eager rows within 5 %, compiled ones within 12 %, the larger layouts within 10 %.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"

using namespace clearfog;

namespace {

struct Row {
  const char* table;
  int gpus;
  bool compile;
  bool float8;
  double published_tps;  // tokens per second per GPU
};

double predicted_tps(const std::vector<config::Override>& extra, int gpus) {
  std::vector<config::Override> overrides = extra;
  overrides.push_back({"platform.fabric.nodes", std::to_string(gpus / 8)});
  const auto scenario = config::load_scenario(
      std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/torchtitan-h100.yaml", overrides);
  return std::stod(engine::run_forked(
             [&] { return std::to_string(driver::run_scenario(scenario).metrics.tokens_per_s); })) /
         gpus;
}

}  // namespace

TEST_CASE("validation::torchtitan Llama 3.1 8B on H100 at 500 W: FSDP2 on 8 and 128 GPUs, eager, compiled, Float8",
          "[validation][simulation]") {
  const Row rows[] = {{"1", 8, false, false, 5762},   {"1", 8, true, false, 6667},   {"1", 8, true, true, 8532},
                      {"3", 128, false, false, 5605}, {"3", 128, true, false, 6514}, {"3", 128, true, true, 8380}};
  for (const auto& row : rows) {
    INFO("Table " << row.table << ": " << row.gpus << " GPUs, compile " << row.compile << ", Float8 " << row.float8);
    const double predicted = predicted_tps({{"parallelism.dp", std::to_string(row.gpus)},
                                            {"training.global_batch", std::to_string(2 * row.gpus)},
                                            {"training.pointwise_fusion", row.compile ? "true" : "false"},
                                            {"training.precision", row.float8 ? "fp8" : "bf16"}},
                                           row.gpus);
    // Eager: every kernel priced as measured on the H200 (the eager ops at its in-place rate); with
    // torch.compile the pointwise chains are priced as hand-fused kernels, and the compiled rows
    // read 2-11 % fast (docs/validation.md: what Inductor runs is not measured here).
    CHECK(predicted == Approx(row.published_tps).epsilon(row.compile ? 0.12 : 0.05));
  }
}

TEST_CASE("validation::torchtitan Llama 3.1 70B on 256 H100 at 500 W: FSDP 32 x TP 8, full checkpointing, Float8",
          "[validation][simulation]") {
  // Table 4, vanilla TP (the async-TP row overlaps the tensor-parallel collectives with the GEMMs
  // that torch.compile splits around them: not modelled). Local batch 16 per data-parallel rank.
  const double predicted = predicted_tps({{"workload", std::string(CLEARFOG_SOURCE_DIR) + "/workloads/llama-3-70b.yaml"},
                                          {"parallelism.dp", "32"},
                                          {"parallelism.tp", "8"},
                                          {"parallelism.sequence_parallel", "true"},
                                          {"training.global_batch", "512"},
                                          {"training.micro_batch", "16"},
                                          {"training.recompute", "full"},
                                          {"training.pointwise_fusion", "true"},
                                          {"training.precision", "fp8"}},
                                         256);
  CHECK(predicted == Approx(829).epsilon(0.10));
}

TEST_CASE("validation::torchtitan Llama 3.1 405B on 512 H100 at 500 W: FSDP 8 x TP 8 x PP 8, 1F1B and interleaved",
          "[validation][simulation]") {
  // Table 5: local batch 32 per data-parallel rank in torchtitan's default number of pipeline
  // micro-batches, the pipeline degree (experimental.pipeline_parallel_microbatches unset: 8 of 4
  // sequences), full checkpointing, Float8 and compile. FSDP2 under pipeline parallelism gathers
  // each stage's parameters once a step and reduces its gradients once (the torchtitan profile).
  // 126 layers do not divide into 8 or 16 chunks: stages balanced by time.
  const auto tps = [](const char* schedule, int virtual_stages) {
    return predicted_tps({{"workload", std::string(CLEARFOG_SOURCE_DIR) + "/workloads/llama-3.1-405b.yaml"},
                          {"parallelism.dp", "8"},
                          {"parallelism.tp", "8"},
                          {"parallelism.pp", "8"},
                          {"parallelism.sequence_parallel", "true"},
                          {"parallelism.schedule", schedule},
                          {"parallelism.virtual_stages", std::to_string(virtual_stages)},
                          {"parallelism.partition", "balanced"},
                          {"training.global_batch", "256"},
                          {"training.micro_batch", "4"},
                          {"training.recompute", "full"},
                          {"training.pointwise_fusion", "true"},
                          {"training.precision", "fp8"}},
                         512);
  };
  const double one_f_one_b = tps("1f1b", 1), interleaved = tps("interleaved", 2);
  CHECK(one_f_one_b == Approx(100).epsilon(0.10));
  CHECK(interleaved == Approx(128).epsilon(0.10));
  // The interleaved schedule's gain, mostly its smaller bubble at 8 micro-batches: 1.28 published.
  CHECK(interleaved / one_f_one_b == Approx(128.0 / 100).epsilon(0.05));
}
