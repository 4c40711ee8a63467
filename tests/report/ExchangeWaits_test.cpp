// A receive posted before its sender has sent waits for it (report/ExchangeWaits): that time is idle
// in the HTML breakdown and the timeline (the pipeline bubble), not pipeline communication.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "engine/ForkedRun.hpp"
#include "report/ExchangeWaits.hpp"
#include "report/HtmlReport.hpp"
#include "report/TimelineSvg.hpp"
#include "support/TestPlatforms.hpp"
#include "support/TextCount.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;

namespace {

constexpr double kWork_s = 1.0;     // what the sender computes before it sends
constexpr double kMessage_B = 1e6;  // one activation

/// Device 1 computes kWork_s, then sends to device 0, which receives on its compute stream from the
/// start after an overhead of `overhead_s`.
program::Plan send_after_work(double overhead_s) {
  program::Plan plan;
  plan.ranks.resize(2);
  const program::Transfer to_0{0, kMessage_B, 7}, from_1{1, kMessage_B, 7};
  plan.ranks[0].add_exchange(Stream::Compute, Category::PipelineComm, "recv_act", {}, {from_1}, {}, overhead_s);
  const auto work = plan.ranks[1].add_compute(Stream::Compute, Category::Forward, "fwd", kWork_s);
  plan.ranks[1].add_exchange(Stream::Compute, Category::PipelineComm, "send_act", {to_0}, {}, {work});
  return plan;
}

}  // namespace

TEST_CASE("report::ExchangeWaits: a receive waits from its posting until its sender posts", "[report][html]") {
  const auto platform = test::switch_platform(2, 100e9, 1e-6);
  for (const double overhead_s : {0.0, 0.25}) {
    INFO("overhead " << overhead_s);
    const auto plan = send_after_work(overhead_s);
    const auto result = engine::simulate_forked(topology::ClusterTopology::build(platform), plan);
    report::ExchangeWaits waits(plan, result);
    // The receive posts after its overhead; the send posts when the work is done.
    CHECK(waits.wait_s(0, 0) == Approx(kWork_s - overhead_s).epsilon(1e-12));
    CHECK(waits.wait_s(1, 0) == 0);  // a compute op
    CHECK(waits.wait_s(1, 1) == 0);  // its receiver was there first
    // The breakdown of device 0: pipeline communication is the overhead and the transfer only, idle
    // the rest of the step (the bubble a first stage sees before its first gradient).
    const double transfer_s = result.ops[0][0].end_s - kWork_s;
    REQUIRE(transfer_s > 0);
    const auto b = report::device_breakdown(plan, result, 0);
    CHECK(b.category_s[static_cast<int>(Category::PipelineComm)] == Approx(overhead_s + transfer_s).epsilon(1e-9));
    CHECK(b.idle_s == Approx(result.makespan_s - overhead_s - transfer_s).epsilon(1e-9));
  }
}

TEST_CASE("report::TimelineSvg: a waiting receive is drawn as idle, its transfer as pipeline communication",
          "[report][html]") {
  const auto platform = test::switch_platform(2, 100e9, 1e-6);
  const auto plan = send_after_work(0);
  const auto result = engine::simulate_forked(topology::ClusterTopology::build(platform), plan);
  const auto svg = report::timeline_svg(plan, result, "wait");
  // One pp_comm bar per device: device 0's starts when the data moves, at the end of the sender's
  // work, not at 0 (the plot starts at x = 120 px: the label column).
  const std::string pp_colour = "fill=\"" + report::category_colour("pp_comm") + "\"";
  CHECK(test::count(svg, pp_colour) == 2 + 1);  // two bars and the legend's swatch
  const double plot_w = 1200 - 120 - 24;
  const std::string at_work_end = fmt::format("x=\"{:.2f}\"", 120 + plot_w * kWork_s / result.makespan_s);
  const auto bar = svg.find("recv_act (pp_comm)");
  REQUIRE(bar != std::string::npos);
  const auto rect = svg.rfind("<rect", bar);
  CHECK(svg.substr(rect, bar - rect).find(at_work_end) != std::string::npos);
  CHECK(svg.find("waiting 1 s for its peer") != std::string::npos);
}
