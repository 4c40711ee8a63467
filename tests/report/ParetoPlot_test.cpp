// The Pareto front of a sweep page (report/ParetoPlot): which points are on it, and its picture.
#include <catch2/catch.hpp>

#include "report/ParetoPlot.hpp"
#include "report/XmlCheck.hpp"

using namespace clearfog;

TEST_CASE("report::pareto_front: the non-dominated fitting points, by increasing x", "[report][sweep]") {
  // (memory, step time): a dominates c (less of both); b trades memory for time; d is faster than
  // all but does not fit; e ties a exactly.
  const std::vector<report::ScatterPoint> points = {
      {10, 2.0, "a"}, {20, 1.0, "b"}, {15, 2.5, "c"}, {30, 0.5, "d", true}, {10, 2.0, "e"}};
  CHECK(report::pareto_front(points, false) == std::vector<std::size_t>{0, 1});
  SECTION("higher y is better: throughput against devices") {
    // (devices, samples/s): 8 devices at 100 beats 16 at 90; 16 at 150 is on the front.
    const std::vector<report::ScatterPoint> scaling = {{8, 100, "a"}, {16, 90, "b"}, {16, 150, "c"}, {32, 400, "d", true}};
    CHECK(report::pareto_front(scaling, true) == std::vector<std::size_t>{0, 2});
  }
}

TEST_CASE("report::pareto_plot_svg: well-formed, OOM rings, deterministic", "[report][sweep]") {
  const std::vector<report::ScatterPoint> points = {
      {10, 2.0, "a <&>"}, {20, 1.0, "b"}, {15, 2.5, "c"}, {30, 0.5, "d", true}};
  const auto svg = report::pareto_plot_svg("front", "memory (GB)", "step (s)", points, false);
  CHECK(test::xml_problem(svg).empty());
  CHECK(svg == report::pareto_plot_svg("front", "memory (GB)", "step (s)", points, false));
  // One ring for the OOM point (the legend's has no class); two points on the front.
  std::size_t rings = 0, front = 0;
  for (auto at = svg.find("class=\"oom\""); at != std::string::npos; at = svg.find("class=\"oom\"", at + 1)) ++rings;
  for (auto at = svg.find("class=\"on-front\""); at != std::string::npos; at = svg.find("class=\"on-front\"", at + 1)) ++front;
  CHECK(rings == 1);
  CHECK(front == 2);
  CHECK_THAT(svg, Catch::Contains("a &lt;&amp;&gt;"));
}
