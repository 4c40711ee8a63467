// The HTML report (report/HtmlReport): the per-device breakdown accounts for the whole iteration,
// the page holds one timeline lane per device and stream, escapes what it quotes, and is
// deterministic. The page in a real browser: tests/html/check_html_report.sh.
#include <catch2/catch.hpp>

#include <sstream>

#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "report/HtmlReport.hpp"
#include "report/Summary.hpp"
#include "support/TestPlatforms.hpp"
#include "support/TextCount.hpp"

using namespace clearfog;
using test::count;

namespace {

config::ScenarioSpec pipeline_scenario() {
  config::ScenarioSpec s;
  s.name = "html <test> & \"pipeline\"";
  s.platform = test::switch_platform(4, 100e9, 1e-6);
  s.workload = test::small_gpt();
  s.training.micro_batch = 1;
  s.training.global_batch = 8;
  s.parallelism.pp = 2;
  s.parallelism.dp = 2;
  return s;
}

}  // namespace

TEST_CASE("HtmlReport: breakdown sums to the step, one lane per device and stream, escaped, deterministic",
          "[report][html][simulation]") {
  const auto s = pipeline_scenario();
  const std::string result = engine::run_forked([&] {
    const auto run = driver::run_scenario(s);
    std::ostringstream out;
    out.precision(17);
    for (int r = 0; r < s.platform.device_count(); ++r) {
      const auto b = report::device_breakdown(run.step.plan, run.simulation, r);
      double total = b.idle_s;
      for (double c : b.category_s) total += c;
      out << total / run.simulation.makespan_s << ' ';
    }
    const report::HtmlReportInputs in{s, run.metrics, run.step.plan, run.simulation, *run.collectives,
                                      report::render_summary_text(s, run.metrics), "", "inputs <a & b>"};
    const auto page = report::html_report(in);
    out << '\n' << (page == report::html_report(in)) << '\n' << page;
    return out.str();
  });
  std::istringstream in(result);
  for (int r = 0; r < 4; ++r) {
    double ratio = 0;
    in >> ratio;
    // Compute-stream busy time by category plus idle time is the iteration (no op overlaps another
    // on one stream).
    CHECK(ratio == Approx(1.0).epsilon(1e-9));
  }
  int deterministic = 0;
  in >> deterministic;
  CHECK(deterministic == 1);
  const std::string page(std::istreambuf_iterator<char>(in), {});
  // pp 2 x dp 2 without ZeRO-3: a compute and a communication lane per device.
  CHECK(count(page, "class=\"lane\"") == 4 * 2);
  CHECK(page.find("<test>") == std::string::npos);
  CHECK(page.find("html &lt;test&gt; &amp; &quot;pipeline&quot;") != std::string::npos);
  CHECK(page.find("inputs &lt;a &amp; b&gt;") != std::string::npos);
  CHECK(page.find("id=\"platform\"") == std::string::npos);  // left out when empty
  for (const auto* id : {"breakdown", "memory", "timeline", "communication", "summary", "inputs"})
    CHECK(page.find(std::string("id=\"") + id + "\"") != std::string::npos);
  // Self-contained: no address but the SVG namespace, no external script or style sheet.
  CHECK(count(page, "http") == count(page, "http://www.w3.org/2000/svg"));
  CHECK(count(page, "src=") == 0);
}

TEST_CASE("HtmlReport: the page names each pipeline figure: the bubble of the stage idle longest, the busiest "
          "device's waits", "[report][html][simulation]") {
  const auto s = pipeline_scenario();
  const std::string result = engine::run_forked([&] {
    const auto run = driver::run_scenario(s);
    const report::HtmlReportInputs in{s, run.metrics, run.step.plan, run.simulation, *run.collectives,
                                      report::render_summary_text(s, run.metrics), "", ""};
    return std::to_string(run.metrics.bubble_stage) + " " + std::to_string(run.metrics.busiest_device) + "\n" +
           report::html_report(in);
  });
  std::istringstream in(result);
  int bubble_stage = -1, busiest = -1;
  in >> bubble_stage >> busiest;
  const std::string page(std::istreambuf_iterator<char>(in), {});
  // 1F1B: the first stage waits (p - 1)(F + B) for its first gradient, the last (p - 1) F for its
  // first activation: the first stage idles longest before its last backward.
  CHECK(bubble_stage == 0);
  // Two figures, each named the same way on its card and in the summary, and nothing else called a
  // pipeline wait.
  CHECK(count(page, "pipeline bubble (stage 0)") == 1);
  CHECK(count(page, "stage 0, the one idle longest before its last backward") == 1);
  CHECK(count(page, "pipeline waits (device " + std::to_string(busiest) + ")") == 1);
  CHECK(count(page, "the busiest device, " + std::to_string(busiest) + ", waits on pipeline receives") == 1);
  CHECK(count(page, "pipeline bubble") == 2);
  CHECK(count(page, "pipeline waits") == 2);
  CHECK(count(page, "receive wait") == 0);
}
