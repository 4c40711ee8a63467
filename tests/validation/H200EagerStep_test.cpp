// Whole training steps measured on one H200 (platforms/calibration/h200-sxm-steps.csv, made by
// scripts/measure-step.py): Llama-style models launched eagerly from Python, against
// scenarios/validation/h200-eager-step.yaml with each row's size. The accelerator file is fitted to
// kernel measurements only (h200-sxm.csv); the scenario's two host launch costs are calibrated on the
// first row (hidden 512), which the simulator must reproduce; the other rows check them.
//
// Rows whose device was busy for at least 90 % of the measured step: within 10 %. The second row,
// bound by the host like the first: within 25 % (docs/validation.md has the table and says why it
// is the worst; the goal is 10 % with no sign).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "parallel/MemoryEstimate.hpp"

using namespace clearfog;

namespace {

struct MeasuredStep {
  std::string name, hidden, layers, heads, ffn_hidden, seq, micro_batch;
  double step_s = 0, busy_s = 0, peak_B = 0;
};

std::vector<MeasuredStep> measured_steps() {
  std::ifstream in(std::string(CLEARFOG_SOURCE_DIR) + "/platforms/calibration/h200-sxm-steps.csv");
  REQUIRE(in);
  std::vector<MeasuredStep> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {  // the columns scripts/measure-step.py writes, in its order
      REQUIRE(line.rfind("name,hidden,layers,heads,ffn_hidden,seq,micro_batch,vocab,steps,step_s,host_s,peak_bytes,"
                         "kernels,busy_s",
                         0) == 0);
      header = false;
      continue;
    }
    std::vector<std::string> c;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) c.push_back(cell);
    REQUIRE(c.size() >= 14);
    rows.push_back({c[0], c[1], c[2], c[3], c[4], c[5], c[6], std::stod(c[9]), std::stod(c[13]), std::stod(c[11])});
  }
  return rows;
}

config::ScenarioSpec scenario_of(const MeasuredStep& row) {
  return config::load_scenario(
      std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/h200-eager-step.yaml",
      {{"workload.hidden", row.hidden},
       {"workload.layers", row.layers},
       {"workload.heads", row.heads},
       {"workload.ffn_hidden", row.ffn_hidden},
       {"workload.seq_length", row.seq},
       {"training.micro_batch", row.micro_batch},
       {"training.global_batch", row.micro_batch}});
}

double predicted_step_s(const MeasuredStep& row) {
  const auto scenario = scenario_of(row);
  return std::stod(engine::run_forked([&] { return std::to_string(driver::run_scenario(scenario).metrics.step_time_s); }));
}

}  // namespace

TEST_CASE("validation::eager Llama steps on one H200: the host calibrated on one row, the others checked",
          "[validation][simulation]") {
  const auto rows = measured_steps();
  REQUIRE(rows.size() == 5);
  int device_bound = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const bool busy = row.busy_s >= 0.9 * row.step_s;
    device_bound += busy;
    INFO(row.name << ": measured " << row.step_s << " s");
    CHECK(predicted_step_s(row) == Approx(row.step_s).epsilon(i == 0 ? 0.01 : busy ? 0.10 : 0.25));
  }
  CHECK(device_bound == 3);
}

TEST_CASE("validation::eager Llama steps on one H200: the memory estimate against the measured peak",
          "[validation][memory]") {
  // torch.cuda.max_memory_allocated over the timed steps; the estimate counts the script's fp32
  // master gradients and its loss's fp32 gradients of the logits (docs/validation.md). Within 6 %.
  for (const auto& row : measured_steps()) {
    INFO(row.name << ": measured peak " << row.peak_B << " B");
    CHECK(parallel::estimate_memory(scenario_of(row)).total_B() == Approx(row.peak_B).epsilon(0.06));
  }
}
