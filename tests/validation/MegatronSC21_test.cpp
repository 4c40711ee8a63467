// End-to-end throughput against Megatron SC21 Table 1 (shared/reference/megatron_sc21_table1.csv):
// the rows of scenarios/sweeps/megatron-sc21-table1.yaml, each the paper's configuration from its
// published scripts, simulated on the resized DGX A100 cluster with the megatron-2021 framework
// profile. docs/validation.md shows the table, each mechanism's contribution, and the 1T row,
// which takes minutes and is run by the sweep, not here.
//
// Goals (issue 16): every row within 5 %, mean absolute error at most 3 %, errors within 3 points
// of each other. Of the profile's constants one is calibrated on this table: the 2020.12
// container's kernel time (megatron-2021's kernel_time_factor), on the 18.4B row; the 1.7B, 7.5B
// and 145.6B rows check it (docs/frameworks.md, "Kernel time").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "support/ReferenceCsv.hpp"
#include "sweep/SweepSpec.hpp"

using namespace clearfog;

namespace {

/// Megatron Eq. 3 TFLOP/s per GPU of one sweep point, simulated in a child process.
double simulate_point(const sweep::SweepSpec& spec, const sweep::SweepPoint& point) {
  const auto scenario = config::load_scenario(spec.base, point.overrides);
  const std::string text = engine::run_forked(
      [&] { return std::to_string(driver::run_scenario(scenario).metrics.megatron_tflops_per_gpu / 1e12); });
  return std::stod(text);
}

}  // namespace

TEST_CASE("validation::Megatron SC21 Table 1, 1.7B to 145.6B, TFLOP/s per GPU", "[validation][simulation]") {
  const auto spec =
      sweep::load_sweep(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/sweeps/megatron-sc21-table1.yaml");
  const auto points = spec.points();
  const auto rows = test::read_reference_csv("megatron_sc21_table1.csv");
  REQUIRE(points.size() == rows.size());
  std::vector<double> errors;
  for (std::size_t i = 0; i + 1 < rows.size(); ++i) {  // the last row (1T, 3072 GPUs) runs in the sweep
    const auto& row = rows[i];
    const auto value = [&](const std::string& key) {
      const auto it = std::find_if(points[i].axes.begin(), points[i].axes.end(),
                                   [&](const auto& axis) { return axis.first == key; });
      REQUIRE(it != points[i].axes.end());
      return std::stoi(it->second);
    };
    // The sweep point is the row: same model and layout.
    REQUIRE(value("workload.layers") == std::stoi(row.at("layers")));
    REQUIRE(value("workload.hidden") == std::stoi(row.at("hidden")));
    REQUIRE(value("workload.heads") == std::stoi(row.at("heads")));
    REQUIRE(value("parallelism.tp") == std::stoi(row.at("tp")));
    REQUIRE(value("parallelism.pp") == std::stoi(row.at("pp")));
    REQUIRE(value("parallelism.tp") * value("parallelism.pp") * value("parallelism.dp") == std::stoi(row.at("gpus")));
    REQUIRE(value("training.global_batch") == std::stoi(row.at("global_batch")));

    const double predicted = simulate_point(spec, points[i]);
    const double published = std::stod(row.at("tflops_per_gpu"));
    const double error = predicted / published - 1;
    INFO(row.at("params_b") << "B: " << predicted << " TFLOP/s per GPU predicted, " << published << " published");
    CHECK(std::abs(error) <= 0.05);
    errors.push_back(error);
  }
  const auto [lo, hi] = std::minmax_element(errors.begin(), errors.end());
  CHECK(*hi - *lo <= 0.03);
  double mean_abs = 0;
  for (double e : errors) mean_abs += std::abs(e) / static_cast<double>(errors.size());
  CHECK(mean_abs <= 0.03);
}
