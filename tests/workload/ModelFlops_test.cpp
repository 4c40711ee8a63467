// Closed forms of formulas.md against each other and against Megatron-LM's published Table 1.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "workload/ModelFlops.hpp"

using namespace clearfog;

namespace {
config::WorkloadSpec gpt(int layers, int hidden, int heads) {
  config::WorkloadSpec w;
  w.layers = layers;
  w.hidden = hidden;
  w.heads = heads;
  w.ffn_hidden = 4 * hidden;
  w.seq_length = 2048;
  w.vocab_size = 51200;
  return w;
}
}  // namespace

TEST_CASE("workload::ModelFlops: Megatron Eq. 3 adds one recomputed layer forward to Eq. 7", "[workload]") {
  // Eq. 3 counts the forward of every layer twice (full recomputation) but the logits once, so
  // Eq. 3 - Eq. 7 = B * l * 24 s h^2 (1 + s/6h).
  const auto w = gpt(36, 4096, 32);
  const double B = 512, l = w.layers, s = w.seq_length, h = w.hidden;
  const double recomputed = B * l * 24 * s * h * h * (1 + s / (6 * h));
  CHECK(workload::megatron_flops_per_iteration(w, B) - workload::model_flops_per_iteration(w, B) ==
        Approx(recomputed).epsilon(1e-9));
}

TEST_CASE("workload::ModelFlops: Eq. 7 is 3x the forward FLOPs (backward = 2x forward)", "[workload]") {
  const auto w = gpt(24, 2304, 24);
  const double B = 8, l = w.layers, s = w.seq_length, h = w.hidden, V = w.vocab_size;
  const double forward = B * (l * 24 * s * h * h * (1 + s / (6 * h)) + 2 * s * h * V);
  CHECK(workload::model_flops_per_iteration(w, B) == Approx(3 * forward).epsilon(1e-12));
}

TEST_CASE("workload::ModelFlops: Eq. 2 reproduces the model sizes of Megatron SC21 Table 1", "[workload]") {
  std::ifstream csv(std::string(CLEARFOG_REFERENCE_DIR) + "/megatron_sc21_table1.csv");
  REQUIRE(csv.good());
  std::string line;
  int rows = 0;
  while (std::getline(csv, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("params_b", 0) == 0) continue;
    std::vector<std::string> cells;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    REQUIRE(cells.size() == 10);
    const double params_b = std::stod(cells[0]);
    const auto w = gpt(std::stoi(cells[3]), std::stoi(cells[2]), std::stoi(cells[1]));
    INFO("row: " << line);
    // The table prints one decimal: Eq. 2 must round to it.
    CHECK(workload::megatron_parameter_count(w) / 1e9 == Approx(params_b).margin(0.05));
    ++rows;
  }
  CHECK(rows == 5);
}
