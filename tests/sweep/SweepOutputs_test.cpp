// What a sweep writes from its points: results.csv, --best, --plot (issue 17, item 5).
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/Errors.hpp"
#include "report/SweepPlot.hpp"
#include "report/XmlCheck.hpp"
#include "sweep/Best.hpp"
#include "sweep/Plot.hpp"
#include "sweep/PointRecord.hpp"
#include "support/TextCount.hpp"

using clearfog::sweep::PointRecord;
using clearfog::test::count;

namespace {

/// A point as the runner writes it: the summary repeats the point's status and its scenario keys.
PointRecord point(int id, int dp, const std::string& status, double samples_per_s) {
  PointRecord p;
  p["id"] = id;
  p["axes"] = {{"parallelism.dp", std::to_string(dp)}, {"platform", "../platforms/a.yaml"}};
  p["status"] = status;
  p["message"] = "";
  p["summary"] = {{"platform", "Platform A"},
                  {"parallelism", {{"dp", dp}, {"tp", 1}}},
                  {"status", status},
                  {"samples_per_s", samples_per_s},
                  {"step_time_s", 1.0 / samples_per_s}};
  return p;
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, sep);) out.push_back(field);
  return out;
}

double attribute(const std::string& svg, const std::string& name) {
  std::smatch m;
  REQUIRE(std::regex_search(svg, m, std::regex("<svg [^>]*" + name + "=\"([0-9.]+)\"")));
  return std::stod(m[1]);
}

}  // namespace

TEST_CASE("sweep::results_csv: one column per key, the axis and status columns not repeated", "[sweep]") {
  const std::map<int, PointRecord> points = {{0, point(0, 4, "ok", 10)}, {1, point(1, 8, "oom", 20)}};
  const auto csv = clearfog::sweep::results_csv(points);
  const auto lines = split(csv, '\n');
  REQUIRE(lines.size() == 3);
  const auto header = split(lines[0], ',');
  CHECK(std::set<std::string>(header.begin(), header.end()).size() == header.size());
  CHECK(header == std::vector<std::string>{"id", "parallelism.dp", "platform", "status", "message", "parallelism.tp",
                                           "samples_per_s", "step_time_s"});
  // The axis column keeps the value as written in the sweep file, status the record's own.
  const auto row = split(lines[2], ',');
  REQUIRE(row.size() == header.size());
  CHECK(row[1] == "8");
  CHECK(row[2] == "../platforms/a.yaml");
  CHECK(row[3] == "oom");
  CHECK(std::stod(row[7]) == Approx(1.0 / 20));
}

TEST_CASE("sweep::render_best: an OOM point is never the best", "[sweep]") {
  // Point 1 is the fastest but does not fit; point 0 is the best that can run.
  const std::map<int, PointRecord> points = {{0, point(0, 4, "ok", 10)}, {1, point(1, 8, "oom", 20)}};
  for (const char* metric : {"throughput", "step_time"}) {
    const auto text = clearfog::sweep::render_best(points, metric);
    CHECK(text.find("1. point 0:") != std::string::npos);
    CHECK(text.find("point 1:") == std::string::npos);
  }
  const std::map<int, PointRecord> only_oom = {{1, point(1, 8, "oom", 20)}};
  CHECK(clearfog::sweep::render_best(only_oom, "throughput").starts_with("No point ran successfully"));
}

TEST_CASE("sweep::sweep_plot_svg: an OOM point is a hollow red ring off the line, with a legend entry", "[sweep]") {
  const std::map<int, PointRecord> points = {
      {0, point(0, 1, "ok", 10)}, {1, point(1, 2, "ok", 15)}, {2, point(2, 4, "oom", 20)}};
  const auto svg = clearfog::sweep::sweep_plot_svg(points, "throughput", "parallelism.dp", "test");
  CHECK(clearfog::test::xml_problem(svg).empty());
  CHECK(count(svg, "<circle class=\"oom\"") == 2);  // the point and the legend's sample
  CHECK(count(svg, std::string("stroke=\"") + clearfog::report::kOomColour) == 2);
  CHECK(svg.find("OOM: memory estimate exceeds the device") != std::string::npos);
  // The line joins the two points that fit, not the OOM one.
  std::smatch m;
  REQUIRE(std::regex_search(svg, m, std::regex("<polyline points=\"([^\"]*)\"")));
  CHECK(split(m[1], ' ').size() == 2);
  CHECK(count(svg, "<polyline") == 1);

  const std::map<int, PointRecord> fits = {{0, point(0, 1, "ok", 10)}, {1, point(1, 2, "ok", 15)}};
  CHECK(clearfog::sweep::sweep_plot_svg(fits, "throughput", "parallelism.dp", "test").find("OOM") == std::string::npos);
}

TEST_CASE("sweep::sweep_plot_svg: bytes and seconds are drawn in GB and ms, the unit in the axis name", "[sweep]") {
  auto with_memory = [](int id, int dp, double total_B) {
    auto p = point(id, dp, "ok", 10);
    p["summary"]["memory"] = {{"total_B", total_B}};
    return p;
  };
  const std::map<int, PointRecord> points = {{0, with_memory(0, 1, 104e9)}, {1, with_memory(1, 2, 26e9)}};
  const auto svg = clearfog::sweep::sweep_plot_svg(points, "memory.total_B", "parallelism.dp", "test");
  CHECK(svg.find("memory.total_B (GB)") != std::string::npos);
  CHECK(svg.find("e+") == std::string::npos);  // no exponent left on a tick
  CHECK(svg.find(": 104<") != std::string::npos);  // the tooltip of the first point, in GB
  // A step time of 0.1 s and 0.0667 s (samples_per_s 10 and 15): below a second, in ms.
  const std::map<int, PointRecord> fast = {{0, point(0, 1, "ok", 10)}, {1, point(1, 2, "ok", 15)}};
  const auto step = clearfog::sweep::sweep_plot_svg(fast, "step_time", "parallelism.dp", "test");
  CHECK(step.find("step_time_s (ms)") != std::string::npos);
  CHECK(step.find(": 100<") != std::string::npos);
}

TEST_CASE("report::line_plot_svg: the legend fits inside the picture", "[report]") {
  // A legend entry is at most font size x 0.62 per character wide (sans-serif average glyphs are narrower).
  constexpr double kFontPx = 11;
  constexpr double kGlyphEm = 0.62;
  const std::string long_name(90, 'w');
  std::vector<clearfog::report::PlotSeries> series;
  for (int i = 0; i < 30; ++i) series.push_back({long_name + std::to_string(i), {1.0, 2.0}, {false, i == 0}});
  const auto svg = clearfog::report::line_plot_svg("title", "x", "y", {"a", "b"}, series);
  CHECK(clearfog::test::xml_problem(svg).empty());
  const double width = attribute(svg, "width");
  const double height = attribute(svg, "height");
  const std::regex text(R"re(<text x="([0-9.]+)" y="([0-9.]+)"[^>]*>([^<]*)</text>)re");
  std::size_t legend_entries = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]);
    const double y = std::stod((*it)[2]);
    const std::string label = (*it)[3];
    if (label.starts_with(long_name) || label.starts_with("OOM")) ++legend_entries;
    CHECK(x + static_cast<double>(label.size()) * kFontPx * kGlyphEm <= width);
    CHECK(y + kFontPx / 2 <= height);
  }
  CHECK(legend_entries == 31);  // 30 series and the OOM ring
}

TEST_CASE("sweep::check_plot_metric: names and numeric summary keys — anything else is refused with the list",
          "[sweep]") {
  for (const char* ok : {"throughput", "mfu", "step_time", "communication.exposed_s", "memory.total_B"})
    CHECK_NOTHROW(clearfog::sweep::check_plot_metric(ok));
  for (const char* bad : {"foo", "platform", "status", "memory", "communication.exposed"}) {
    try {
      clearfog::sweep::check_plot_metric(bad);
      FAIL("accepted " << bad);
    } catch (const clearfog::ConfigError& e) {
      const std::string message = e.diagnostics().front().message;
      CHECK(message.starts_with(std::string("unknown metric \"") + bad + "\""));
      CHECK(message.find("allowed: throughput, mfu, step_time, ") != std::string::npos);
      CHECK(message.find("communication.exposed_s") != std::string::npos);
    }
  }
  const auto metrics = clearfog::sweep::plot_metrics();
  CHECK(std::set<std::string>(metrics.begin(), metrics.end()).size() == metrics.size());
}
