// The comparison page (sweep/ComparisonPage): a row per platform, a plot per platform that
// simulated a configuration, escaped, self-contained and deterministic. In a real browser:
// tests/html/check_compare_report.sh.
#include <catch2/catch.hpp>

#include "compare/ComparisonPage.hpp"
#include "support/TextCount.hpp"

using namespace clearfog;
using test::count;

namespace {

nlohmann::ordered_json configuration(int dp, const std::string& status, double memory_B, double step_s) {
  nlohmann::ordered_json c = {{"tp", 1}, {"pp", 1}, {"dp", dp}, {"micro_batch", 1}, {"status", status}};
  c["memory"] = {{"total_B", memory_B}, {"capacity_B", 80e9}};
  if (status == "ok") c["step_time_s"] = step_s;
  return c;
}

}  // namespace

TEST_CASE("compare::comparison_html: a row per platform, a plot per simulated platform, escaped", "[sweep][html]") {
  nlohmann::ordered_json j;
  j["workload"] = "w.yaml";
  j["global_batch"] = 32;
  auto fits = nlohmann::ordered_json::object();
  fits["platform"] = "fits <A>";
  fits["devices"] = 8;
  fits["status"] = "ok";
  fits["best"] = {{"workload", "Tiny & GPT"}, {"step_time_s", 0.5}, {"samples_per_s", 64}, {"mfu", 0.3}};
  fits["configurations_tried"] = {configuration(8, "ok", 60e9, 0.5), configuration(4, "ok", 70e9, 0.6),
                                  configuration(2, "oom", 90e9, 0)};
  auto none = nlohmann::ordered_json::object();
  none["platform"] = "too small";
  none["devices"] = 2;
  none["status"] = "oom";
  none["best"] = nullptr;
  none["configurations_tried"] = {configuration(2, "oom", 90e9, 0)};
  j["platforms"] = {fits, none};
  REQUIRE(compare::is_comparison_json(j));
  const auto page = compare::comparison_html(j, "inputs");
  CHECK(page == compare::comparison_html(j, "inputs"));
  const auto body = page.substr(page.find("<tbody>"), page.find("</tbody>") - page.find("<tbody>"));
  CHECK(count(body, "<tr ") == 2);
  CHECK(count(page, "<div class=\"plot\">") == 1);  // the second platform simulated nothing
  // On the front: dp 8 (less memory, faster) dominates dp 4.
  CHECK(count(page, "class=\"on-front\"") == 1);
  CHECK(page.find("compare: Tiny &amp; GPT") != std::string::npos);
  CHECK(page.find("fits &lt;A&gt;") != std::string::npos);
  CHECK(page.find("no configuration fits") != std::string::npos);
  CHECK(count(page, "http") == count(page, "http://www.w3.org/2000/svg"));
  CHECK_FALSE(compare::is_comparison_json(nlohmann::ordered_json::object()));
}
