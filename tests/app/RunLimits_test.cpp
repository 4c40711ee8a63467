// `clearfog run` within limits: the replay mode it reports, --no-symmetry giving the same step, a
// memory budget refused before simulating (exit 2), --timeout (exit 2), and a short run that
// prints nothing on stderr.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "support/RunCli.hpp"

namespace {

using clearfog::test::run_cli;
const std::string kScenarios = std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/";

}  // namespace

TEST_CASE("cli run: the summary says how the replay ran, and --no-symmetry changes nothing else", "[cli]") {
  const auto symmetric = run_cli("run " + kScenarios + "gpt-7.5b-hybrid.yaml --format json", false);
  const auto full = run_cli("run " + kScenarios + "gpt-7.5b-hybrid.yaml --format json --no-symmetry", false);
  REQUIRE(symmetric.exit_code == 0);
  REQUIRE(full.exit_code == 0);
  auto a = nlohmann::json::parse(symmetric.output);
  auto b = nlohmann::json::parse(full.output);
  CHECK(a["simulation"]["replay"]["mode"] == "symmetric");
  CHECK(b["simulation"]["replay"]["mode"] == "full");
  CHECK(a["simulation"]["replay"]["simulated_ops"].get<double>() < b["simulation"]["replay"]["simulated_ops"].get<double>());
  a["simulation"].erase("replay");
  b["simulation"].erase("replay");
  CHECK(a == b);  // every figure of the summary, step time included, bit for bit
  const auto text = run_cli("run " + kScenarios + "gpt-7.5b-hybrid.yaml", false);
  CHECK_THAT(text.output, Catch::Contains("Replay: symmetric"));
}

TEST_CASE("cli run: a run larger than --max-memory is refused before it starts", "[cli]") {
  const auto r = run_cli("run " + kScenarios + "quickstart.yaml --max-memory 1MiB");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--max-memory: the run would need") && Catch::Contains("collectives.fidelity: fluid") &&
                           Catch::Contains("granularity: chunk"));
  const auto bad_unit = run_cli("run " + kScenarios + "quickstart.yaml --max-memory 12parsecs");
  CHECK(bad_unit.exit_code == 2);
  CHECK_THAT(bad_unit.output, Catch::Contains("--max-memory"));
}

TEST_CASE("cli run: --timeout stops a run with exit code 2", "[cli]") {
  const auto r = run_cli("run " + kScenarios + "gpt-7.5b-tp.yaml --timeout 0.000001");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--timeout: no result after"));
}

TEST_CASE("cli run: a short run writes nothing on stderr", "[cli]") {
  const auto both = run_cli("run " + kScenarios + "quickstart.yaml", true);
  const auto stdout_only = run_cli("run " + kScenarios + "quickstart.yaml", false);
  CHECK(both.exit_code == 0);
  CHECK(both.output == stdout_only.output);
}
