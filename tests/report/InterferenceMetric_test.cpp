// The summary's "beside collectives" figure (report::StepMetrics::interference_s): a kernel that
// runs o seconds of its wall time beside a sending collective does o/f of work in them (f the
// platform's slowdown), so it ends o·(1 − 1/f) later. Summed over the busiest device's kernels, from
// the simulated timings, that is what the figure must be; without interference it is 0.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"

using namespace clearfog;

namespace {

/// Length of [start, end] covered by the union of `spans` (sorted by start).
double covered(const std::vector<std::pair<double, double>>& spans, double start, double end) {
  double total = 0, reach = start;
  for (const auto& [a, b] : spans) {
    const double lo = std::max(a, reach), hi = std::min(b, end);
    if (hi > lo) total += hi - lo;
    reach = std::max(reach, std::min(b, end));
  }
  return total;
}

/// "reported expected factor" for the quickstart with `units` SMs held by a collective.
std::string figures(int units) {
  const auto scenario = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                                              {{"platform.collectives.interference.units", std::to_string(units)}});
  return engine::run_forked([&] {
    const auto run = driver::run_scenario(scenario);
    const int r = run.metrics.busiest_device;
    const auto& program = run.step.plan.ranks[static_cast<std::size_t>(r)];
    const auto& times = run.simulation.ops[static_cast<std::size_t>(r)];
    // Sending exchanges of the other streams: the collectives a kernel runs beside.
    std::vector<std::pair<double, double>> comms;
    for (program::OpIndex i = 0; i < program.size(); ++i)
      if (program.kind(i) == program::OpKind::Exchange && program.stream(i) != program::Stream::Compute &&
          program.sends_end(i) > program.transfer_begin(i))
        comms.emplace_back(times[i].start_s, times[i].end_s);
    std::sort(comms.begin(), comms.end());
    const double f = run.step.plan.compute_slowdown_under_comm;
    double expected = 0;
    for (program::OpIndex i = 0; i < program.size(); ++i)
      if (program.kind(i) == program::OpKind::Compute && program.stream(i) == program::Stream::Compute)
        expected += covered(comms, times[i].start_s, times[i].end_s) * (1 - 1 / f);
    return fmt::format("{:.17g} {:.17g} {:.17g}", run.metrics.interference_s, expected, f);
  });
}

}  // namespace

TEST_CASE("report::StepMetrics: kernels beside a collective lose o(1 - 1/f), as the interference figure says",
          "[report][simulation]") {
  double reported = 0, expected = 0, factor = 0;
  std::sscanf(figures(16).c_str(), "%lf %lf %lf", &reported, &expected, &factor);
  CHECK(factor == Approx(108.0 / (108 - 16)));  // the A100's 108 SMs, 16 held
  REQUIRE(expected > 0);                         // the quickstart's all-reduces overlap its backward
  CHECK(reported == Approx(expected).epsilon(1e-9));
  std::sscanf(figures(0).c_str(), "%lf %lf %lf", &reported, &expected, &factor);
  CHECK(factor == 1);
  CHECK(reported == 0);
}
