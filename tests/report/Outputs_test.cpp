// Trace, timeline and CSV outputs of one run: the trace-event format, well-formed SVG, CSV rows.
#include <catch2/catch.hpp>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/Errors.hpp"
#include "report/ChromeTrace.hpp"
#include "report/CsvTables.hpp"
#include "report/TimelineSvg.hpp"
#include "report/XmlCheck.hpp"

using namespace clearfog;

namespace {

/// `ranks` ranks, each: forward, backward on compute; one exchange on comm that sends 1 MB to the
/// next rank and receives from the previous (a ring step), after the backward.
struct Fixture {
  program::Plan plan;
  engine::SimulationResult result;
};

Fixture ring_fixture(int ranks) {
  Fixture f;
  constexpr double kForward = 1e-3;   // s
  constexpr double kBackward = 2e-3;  // s
  constexpr double kExchange = 5e-4;  // s
  for (int r = 0; r < ranks; ++r) {
    auto& p = f.plan.ranks.emplace_back();
    p.add_compute(program::Stream::Compute, program::Category::Forward, "L0.fwd", kForward);
    const auto b = p.add_compute(program::Stream::Compute, program::Category::Backward, "L0.bwd", kBackward);
    p.add_exchange(program::Stream::Comm, program::Category::DataParallelComm, "allreduce.b0.rs0",
                   {{(r + 1) % ranks, 1e6, 7}}, {{(r + ranks - 1) % ranks, 1e6, 7}}, {b});
    f.result.ops.push_back({{0, kForward}, {kForward, kForward + kBackward},
                            {kForward + kBackward, kForward + kBackward + kExchange}});
  }
  f.result.makespan_s = kForward + kBackward + kExchange;
  return f;
}

}  // namespace

TEST_CASE("report::chrome_trace_json: follows the trace-event format", "[report]") {
  const int ranks = 4;
  const auto f = ring_fixture(ranks);
  const auto trace = report::chrome_trace_json(f.plan, f.result);
  REQUIRE(trace.contains("traceEvents"));
  std::map<std::pair<int, int>, double> last_ts;  // (pid, tid) -> ts of the previous X
  std::map<std::uint64_t, std::string> flow_phases;
  std::set<int> named_processes;
  int complete = 0;
  for (const auto& e : trace.at("traceEvents")) {
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("pid"));
    REQUIRE(e.contains("tid"));
    const auto ph = e.at("ph").get<std::string>();
    if (ph == "M") {
      CHECK(e.at("args").contains("name") | e.at("args").contains("sort_index"));
      if (e.at("name") == "process_name") named_processes.insert(e.at("pid").get<int>());
      continue;
    }
    REQUIRE(e.contains("ts"));
    REQUIRE(e.contains("name"));
    if (ph == "X") {
      ++complete;
      REQUIRE(e.contains("dur"));
      CHECK(e.at("dur").get<double>() >= 0);
      const auto key = std::pair(e.at("pid").get<int>(), e.at("tid").get<int>());
      const double ts = e.at("ts").get<double>();
      if (last_ts.count(key)) CHECK(ts >= last_ts[key]);
      last_ts[key] = ts;
    } else if (ph == "s" || ph == "f") {
      REQUIRE(e.contains("id"));
      flow_phases[e.at("id").get<std::uint64_t>()] += ph;
    } else {
      FAIL("unexpected phase " << ph);
    }
  }
  CHECK(static_cast<int>(named_processes.size()) == ranks);
  std::size_t ops = 0;
  for (const auto& p : f.plan.ranks) ops += p.size();
  CHECK(complete == static_cast<int>(ops));
  // One flow per send, each with exactly one start and one finish.
  CHECK(flow_phases.size() == static_cast<std::size_t>(ranks));
  for (const auto& [id, phases] : flow_phases) CHECK(phases == "sf");
}

TEST_CASE("report::parse_trace_ranks: ranks and ranges below the device count", "[report][trace]") {
  const auto kept = report::parse_trace_ranks("0-7,64", 128);
  REQUIRE(kept.size() == 128);
  for (int r = 0; r < 128; ++r) CHECK(kept[r] == (r <= 7 || r == 64));
  CHECK(report::parse_trace_ranks("3", 4) == std::vector<bool>{false, false, false, true});
  CHECK(report::parse_trace_ranks("2-2,0", 4) == std::vector<bool>{true, false, true, false});
  for (const char* bad : {"", "8", "0-8", "3-1", "a", "1,", ",1", "-1", "1-", "1-2-3", " 1", "+1", "99999999999"}) {
    INFO(bad);
    CHECK_THROWS_AS(report::parse_trace_ranks(bad, 8), ConfigError);
  }
  CHECK_THROWS_WITH(report::parse_trace_ranks("0-8", 8),
                    Catch::Contains("--trace-ranks: \"0-8\": rank 8 is not below the device count 8") &&
                        Catch::Contains("from 0 to 7"));
}

TEST_CASE("report::chrome_trace_json: --trace-ranks keeps only those devices", "[report][trace]") {
  const int ranks = 8;
  const auto f = ring_fixture(ranks);
  const auto kept = report::parse_trace_ranks("1-2,5", ranks);
  const auto trace = report::chrome_trace_json(f.plan, f.result, ranks, nullptr, kept);
  std::size_t expected_ops = 0, expected_flows = 0;
  for (int r = 0; r < ranks; ++r) {
    if (!kept[r]) continue;
    expected_ops += f.plan.ranks[r].size();
    if (kept[(r + 1) % ranks]) ++expected_flows;  // each rank sends to the next
  }
  std::size_t complete = 0, flow_starts = 0;
  for (const auto& e : trace.at("traceEvents")) {
    CHECK(kept[e.at("pid").get<int>()]);
    complete += e.at("ph") == "X";
    flow_starts += e.at("ph") == "s";
  }
  CHECK(complete == expected_ops);
  CHECK(flow_starts == expected_flows);
  CHECK(trace.dump().size() < report::chrome_trace_json(f.plan, f.result, ranks).dump().size());
}

TEST_CASE("report::timeline_svg: well-formed, deterministic, capped", "[report]") {
  SECTION("8 devices") {
    const auto f = ring_fixture(8);
    const auto svg = report::timeline_svg(f.plan, f.result, "test <&> title");
    CHECK(test::xml_problem(svg).empty());
    CHECK(svg == report::timeline_svg(f.plan, f.result, "test <&> title"));
    CHECK_THAT(svg, Catch::Contains("device 7"));
    CHECK_THAT(svg, Catch::Contains(">idle<"));
  }
  SECTION("more devices than the cap are named, not drawn") {
    const int ranks = report::kTimelineMaxDevices + 6;
    const auto f = ring_fixture(ranks);
    const auto svg = report::timeline_svg(f.plan, f.result, "big");
    CHECK(test::xml_problem(svg).empty());
    CHECK_THAT(svg, Catch::Contains("of " + std::to_string(ranks) + " shown"));
  }
  SECTION("the checker itself rejects broken XML") {
    CHECK_FALSE(test::xml_problem("<svg><rect></svg>").empty());
    CHECK_FALSE(test::xml_problem("<svg a=1/>").empty());
    CHECK_FALSE(test::xml_problem("<svg>a & b</svg>").empty());
  }
}

TEST_CASE("report::csv tables: one row per op and per device", "[report]") {
  const int ranks = 3;
  const auto f = ring_fixture(ranks);
  const auto ops = report::ops_csv(f.plan, f.result);
  std::size_t op_count = 0;
  for (const auto& p : f.plan.ranks) op_count += p.size();
  CHECK(static_cast<std::size_t>(std::count(ops.begin(), ops.end(), '\n')) == op_count + 1);
  CHECK(ops.starts_with("rank,stream,op,category,start_s,end_s\n"));
  const auto devices = report::devices_csv(f.plan, f.result);
  CHECK(std::count(devices.begin(), devices.end(), '\n') == ranks + 1);
  CHECK(report::csv_field("a,b") == "\"a,b\"");
  CHECK(report::csv_field("say \"x\"") == "\"say \"\"x\"\"\"");
}
