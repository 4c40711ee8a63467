// The sweep page (sweep/SweepReport): one table row per point, OOM points never the best, plots per
// axis and the Pareto front, escaped, self-contained and deterministic. In a real browser:
// tests/html/check_sweep_report.sh.
#include <catch2/catch.hpp>

#include "sweep/SweepReport.hpp"
#include "support/TextCount.hpp"

using namespace clearfog;
using test::count;

namespace {

sweep::PointRecord point(int id, const std::string& dp, const std::string& mb, const std::string& status,
                         double samples_per_s, double memory_B) {
  sweep::PointRecord p;
  p["id"] = id;
  p["axes"] = {{"parallelism.dp", dp}, {"training.micro_batch", mb}};
  p["status"] = status;
  p["message"] = status == "error" ? "bad <batch> & more" : "";
  if (status == "ok" || status == "oom") {
    const double batch = 64;
    p["summary"] = {{"devices", 8},
                    {"step_time_s", batch / samples_per_s},
                    {"samples_per_s", samples_per_s},
                    {"mfu", 0.4},
                    {"memory", {{"total_B", memory_B}, {"capacity_B", 80e9}}}};
  }
  return p;
}

}  // namespace

TEST_CASE("sweep::sweep_html: a row per point, OOM never best, plots, escaped, deterministic", "[sweep][html]") {
  std::map<int, sweep::PointRecord> points;
  // The OOM point has the highest throughput; the best is the fastest point that fits (id 1).
  points[0] = point(0, "2", "1", "ok", 100, 30e9);
  points[1] = point(1, "2", "2", "ok", 150, 50e9);
  points[2] = point(2, "4", "1", "oom", 400, 90e9);
  points[3] = point(3, "4", "2", "error", 0, 0);
  const auto page = sweep::sweep_html("sweep <x>", points, "inputs & more");
  CHECK(page == sweep::sweep_html("sweep <x>", points, "inputs & more"));
  const auto body = page.substr(page.find("<tbody>"), page.find("</tbody>") - page.find("<tbody>"));
  CHECK(count(body, "<tr ") == points.size());
  CHECK(count(body, "class=\"ok best\"") == 1);
  CHECK(count(body, "<tr class=\"ok best\"><td data-v=\"1\">") == 1);
  CHECK(count(body, "class=\"oom\"") == 1);
  // Three plots per axis with two values (two axes), and the Pareto front.
  CHECK(count(page, "<div class=\"plot\">") == 3 * 2 + 1);
  // The OOM point is drawn as a ring, never on the front, in each plot and in the Pareto plot.
  CHECK(count(page, "class=\"oom\" cx=") >= 3 * 2 + 1);
  CHECK(page.find("<x>") == std::string::npos);
  CHECK(page.find("sweep &lt;x&gt;") != std::string::npos);
  CHECK(page.find("bad &lt;batch&gt; &amp; more") != std::string::npos);
  CHECK(count(page, "http") == count(page, "http://www.w3.org/2000/svg"));
  CHECK(count(page, "src=") == 0);
}

TEST_CASE("sweep::sweep_html: throughput against devices when the device count varies", "[sweep][html]") {
  std::map<int, sweep::PointRecord> points;
  points[0] = point(0, "2", "1", "ok", 100, 30e9);
  points[1] = point(1, "4", "1", "ok", 190, 30e9);
  points[1]["summary"]["devices"] = 16;
  const auto page = sweep::sweep_html("scaling", points, "");
  CHECK(page.find("throughput against devices") != std::string::npos);
  CHECK(page.find("step time against memory per device") == std::string::npos);
}
