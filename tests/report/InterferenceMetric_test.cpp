// The summary's "beside collectives" figure (report::StepMetrics::interference_s): a kernel that
// runs o seconds of its wall time beside a sending collective does o/f of work in them (f the
// platform's slowdown), so it ends o·(1 − 1/f) later. Summed over the busiest device's kernels, from
// the simulated timings, that is what the figure must be; without interference it is 0. The same
// for the collective side (communication.interference_s): o seconds of a sending collective beside
// the device's kernels at the collective factor g lose o·(1 − 1/g).
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

/// `describe(run, program, times)` of the quickstart run with `key` set to `value`, in a child
/// process: the busiest device's program and its simulated op times.
template <typename F>
std::string on_quickstart(const std::string& key, const std::string& value, F&& describe) {
  const auto scenario =
      config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/quickstart.yaml", {{"platform." + key, value}});
  return engine::run_forked([&] {
    const auto run = driver::run_scenario(scenario);
    const auto r = static_cast<std::size_t>(run.metrics.busiest_device);
    return describe(run, run.step.plan.ranks[r], run.simulation.ops[r]);
  });
}

/// "reported expected factor" for the quickstart with `units` SMs held by a collective.
std::string figures(int units) {
  return on_quickstart("collectives.interference.units", std::to_string(units), [](const auto& run,
                                                                                   const auto& program,
                                                                                   const auto& times) {
    // Sending exchanges of the other streams: the collectives a kernel runs beside.
    std::vector<std::pair<double, double>> comms;
    for (program::OpIndex i = 0; i < program.size(); ++i)
      if (program.kind(i) == program::OpKind::Exchange && program.stream(i) != program::Stream::Compute &&
          program.sends_end(i) > program.transfer_begin(i))
        comms.emplace_back(times[i].start_s, times[i].end_s);
    std::sort(comms.begin(), comms.end());
    const double f = run.step.plan.interference.compute;
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

namespace {

/// "reported expected factor replay-mode" for the collective side: the quickstart with its
/// collectives taking `share` of the memory bandwidth.
std::string collective_figures(double share) {
  return on_quickstart("collectives.interference.memory_share", fmt::format("{}", share), [](const auto& run,
                                                                                             const auto& program,
                                                                                             const auto& times) {
    std::vector<std::pair<double, double>> kernels;
    for (program::OpIndex i = 0; i < program.size(); ++i)
      if (program.kind(i) == program::OpKind::Compute && program.stream(i) == program::Stream::Compute &&
          times[i].end_s > times[i].start_s)
        kernels.emplace_back(times[i].start_s, times[i].end_s);
    std::sort(kernels.begin(), kernels.end());
    const double g = run.step.plan.interference.collective;
    double expected = 0;
    for (program::OpIndex i = 0; i < program.size(); ++i)
      if (program.kind(i) == program::OpKind::Exchange && program.stream(i) != program::Stream::Compute &&
          program.sends_end(i) > program.transfer_begin(i))
        expected += covered(kernels, times[i].start_s, times[i].end_s) * (1 - 1 / g);
    return fmt::format("{:.17g} {:.17g} {:.17g} {}", run.metrics.collective_interference_s, expected, g,
                       run.simulation.replay.mode);
  });
}

}  // namespace

TEST_CASE("report::StepMetrics: collectives beside kernels lose o(1 - 1/g), as the figure says",
          "[report][simulation]") {
  double reported = 0, expected = 0, factor = 0;
  char mode[32] = {};
  std::sscanf(collective_figures(0.3).c_str(), "%lf %lf %lf %31s", &reported, &expected, &factor, mode);
  CHECK(factor == Approx(1.3));
  REQUIRE(expected > 0);  // the quickstart's all-reduces overlap its backward
  CHECK(reported == Approx(expected).epsilon(1e-9));
  CHECK(std::string(mode) == "full");  // a kernel slows its own device's links: no quotient
  std::sscanf(collective_figures(0).c_str(), "%lf %lf %lf %31s", &reported, &expected, &factor, mode);
  CHECK(factor == 1);
  CHECK(reported == 0);
}
