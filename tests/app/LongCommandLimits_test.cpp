// `clearfog burst` and `clearfog cluster` within limits, as `run`: --max-memory refuses a simulation
// before it starts (exit 2, run's message), --timeout stops the command (exit 2), and a bad value
// of either names the option.
#include <catch2/catch.hpp>

#include <string>

#include "support/RunCli.hpp"

namespace {

using clearfog::test::run_cli;
const std::string kScenarios = std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/";
const std::string kBurst = "burst " + kScenarios + "studies/burst/resnet50.yaml --devices 8";
const std::string kCluster = "cluster " + kScenarios + "cluster/two-gpt-jobs.yaml";

}  // namespace

TEST_CASE("cli burst and cluster: --max-memory and --timeout stop them as they stop run", "[cli]") {
  struct Limit {
    std::string too_tight;  // stops the command with exit 2 ...
    std::string message;    // ... saying this
    std::string bad;        // refused before anything runs
  };
  const Limit memory{"--max-memory 1KiB", "more than --max-memory", "--max-memory 12parsecs"};
  const Limit time{"--timeout 0.000001", "--timeout: no result after", "--timeout -1"};
  for (const auto& command : {kBurst, kCluster})
    for (const Limit& limit : {memory, time}) {
      INFO(command << " " << limit.too_tight);
      const auto r = run_cli(command + " " + limit.too_tight);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.output, Catch::Contains(limit.message));
      const auto bad = run_cli(command + " " + limit.bad);
      CHECK(bad.exit_code == 2);
      CHECK_THAT(bad.output, Catch::Contains(limit.bad.substr(0, limit.bad.find(' '))));
    }
}
