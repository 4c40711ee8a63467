// `clearfog compare` within limits: progress on stderr as it goes, --max-memory refusing every
// configuration before it runs, and Ctrl-C (SIGINT) ending it with the partial table, exit code
// 130 and no temp directory left behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/RunCli.hpp"

namespace {

using clearfog::test::run_cli;
const std::string kTiny = std::string(CLEARFOG_SOURCE_DIR) + "/tests/sweep/data/compare-tiny.yaml";
const std::string kSource = CLEARFOG_SOURCE_DIR;

}  // namespace

TEST_CASE("cli compare: progress per pass and platform on stderr", "[cli][compare]") {
  const auto r = run_cli("compare " + kTiny + " --jobs 2", true);  // stdout and stderr
  REQUIRE(r.exit_code == 0);
  // One line as each pass starts, with the count per platform; one as it ends.
  CHECK_THAT(r.output, Catch::Contains("compare: round 1 pass 1 (every layout):") &&
                           Catch::Contains("configurations to simulate (DGX A100 ") &&
                           Catch::Contains("IPU-POD16 ") && Catch::Contains("compare: confirmation"));
}

TEST_CASE("cli compare: --max-memory refuses every configuration before it runs", "[cli][compare]") {
  const auto r = run_cli("compare " + kTiny + " --max-memory 1KiB --format json", false);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.output);
  for (const auto& p : j["platforms"]) {
    CHECK(p["status"] == "error");
    CHECK(p["configurations"]["failed"] == p["configurations"]["simulated"]);
    CHECK_THAT(p["failure"].get<std::string>(), Catch::Contains("--max-memory"));
  }
}

TEST_CASE("cli compare: SIGINT keeps the partial results and removes the temp directory", "[cli][compare]") {
  // GPT 7.5B over every layout of 8 nodes of DGX A100s, one configuration at a time: minutes,
  // interrupted once the first progress line has counted.
  const auto tmp = std::filesystem::temp_directory_path() / "clearfog-compare-interrupt-test";
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  const std::string script =
      "bash -c 'export TMPDIR=" + tmp.string() + "; " + CLEARFOG_BINARY + " compare --workload " + kSource +
      "/workloads/gpt-7.5b.yaml --platforms " + kSource + "/platforms/dgx-a100-cluster.yaml --devices 8 --jobs 1 >" +
      tmp.string() + "/out 2>" + tmp.string() + "/err & pid=$!; " +
      "for i in $(seq 300); do grep -qE \"[0-9]+/[0-9]+ \" " + tmp.string() + "/err 2>/dev/null && break; sleep 0.1; done; " +
      "kill -INT $pid; wait $pid; echo exit=$?; ls " + tmp.string() + "; cat " + tmp.string() + "/out " + tmp.string() +
      "/err'";
  FILE* pipe = ::popen(script.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) output += buf;
  ::pclose(pipe);
  INFO(output);
  CHECK_THAT(output, Catch::Contains("exit=130"));
  CHECK_THAT(output, Catch::Contains("PARTIAL: the search was interrupted by SIGINT"));
  CHECK_THAT(output, Catch::Contains("the results above are partial"));
  // Only the two files the script made: the scenario files' directory is gone.
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(tmp)) {
    CHECK((e.path().filename() == "out" || e.path().filename() == "err"));
    ++entries;
  }
  CHECK(entries == 2);
  std::filesystem::remove_all(tmp);
}
