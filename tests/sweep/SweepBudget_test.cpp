// Budgets over sweep points (docs/sweeps.md, "Budgets"): the cost is base + Σ cost · value / per at
// each point; a point over the limit is skipped without a simulation, the others carry their cost;
// a term's key must be swept (or set) and its values must be quantities of its `per`.
#include <catch2/catch.hpp>

#include <string>

#include "core/Errors.hpp"
#include "engine/ForkedRun.hpp"
#include "sweep/SweepChecks.hpp"
#include "sweep/SweepRunner.hpp"
#include "sweep/SweepSpec.hpp"

using namespace clearfog;

namespace {

const std::string kData = std::string(CLEARFOG_SOURCE_DIR) + "/tests/sweep/data/";

std::string all_messages(const ConfigError& e) {
  std::string all;
  for (const auto& d : e.diagnostics()) all += d.str() + "\n";
  return all;
}

}  // namespace

TEST_CASE("sweep::SweepBudget: each point's cost from its values — points over the limit are skipped unsimulated",
          "[sweep]") {
  const auto spec = sweep::load_sweep(kData + "budget.yaml");
  REQUIRE(spec.budget);
  CHECK(spec.budget->name == "area_mm2");
  const auto points = spec.points();
  REQUIRE(points.size() == 6);
  // The grid's first axis varies slowest: (100, 1), (100, 2), (200, 1), (200, 2), (400, 1), (400, 2).
  const double peaks[] = {100, 100, 200, 200, 400, 400}, bandwidths[] = {1, 2, 1, 2, 1, 2};
  for (std::size_t i = 0; i < points.size(); ++i)
    CHECK(spec.budget->value(points[i].overrides) == Approx(100 + peaks[i] + 100 * bandwidths[i]));
  const auto over = sweep::evaluate_point(spec, points[5]);  // 100 + 400 + 200 = 700 > 500
  CHECK(over["status"] == "skipped");
  CHECK(over["message"].get<std::string>().find("area_mm2 = 700 exceeds its max 500") != std::string::npos);
  CHECK(!over.contains("summary"));
  // A simulation runs at most once per process: in a child.
  const auto within = nlohmann::ordered_json::parse(
      engine::run_forked([&] { return sweep::evaluate_point(spec, points[0]).dump(); }));
  CHECK(within["status"] == "ok");
  CHECK(within["summary"]["area_mm2"].get<double>() == Approx(300));
  // The budget is part of what makes the sweep the same (a changed limit is a new sweep).
  auto other = spec;
  other.budget->max = 600;
  CHECK(other.fingerprint() != spec.fingerprint());
}

TEST_CASE("sweep::SweepBudget: a term on an unswept key, or with the wrong unit, is a located error", "[sweep]") {
  try {
    sweep::load_sweep(kData + "budget-bad.yaml");
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    INFO(all_messages(e));
    CHECK(all_messages(e).find("budget-bad.yaml:10:13: budget.terms.key: \"platform.accelerator.memory.bandwidth\" is "
                               "not an axis or a set key") != std::string::npos);
  }
  // Remove the unswept term: the per of the other is a bandwidth, the swept values are FLOP rates.
  auto spec = sweep::load_sweep(kData + "budget.yaml");
  spec.budget->terms[0].dimension = units::Dimension::Bandwidth;
  try {
    sweep::check_sweep_values(spec);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    INFO(all_messages(e));
    CHECK(all_messages(e).find("budget.yaml:14:7: budget.terms: platform.accelerator.peak.bf16 = \"100 TFLOP/s\"") !=
          std::string::npos);
  }
}
