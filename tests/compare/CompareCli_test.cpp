// `clearfog compare` as a user runs it: every platform gets a configuration that uses all its
// devices, a model that fits nowhere is reported as oom, a bad comparison file is located.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/RunCli.hpp"
#include "compare/CompareFile.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(CLEARFOG_SOURCE_DIR) / "tests/sweep/data";

using Outcome = clearfog::test::CliOutcome;

Outcome run(const std::string& args, bool with_stderr) { return clearfog::test::run_cli(args, with_stderr); }

/// Layouts (tp, pp) with tp * pp dividing `devices`: the sum over tp | devices of d(devices / tp).
int layouts(int devices) {
  int n = 0;
  for (int tp = 1; tp <= devices; ++tp)
    if (devices % tp == 0)
      for (int pp = 1; pp <= devices / tp; ++pp) n += (devices / tp) % pp == 0 ? 1 : 0;
  return n;
}

/// Layouts the validator refuses for a workload: tp must divide the heads, pp the layers.
int refused_layouts(int devices, int heads, int layers) {
  int n = 0;
  for (int tp = 1; tp <= devices; ++tp)
    if (devices % tp == 0)
      for (int pp = 1; pp <= devices / tp; ++pp)
        if ((devices / tp) % pp == 0 && (heads % tp != 0 || layers % pp != 0)) ++n;
  return n;
}

}  // namespace

TEST_CASE("clearfog compare: each platform gets its best configuration over all of its devices", "[compare][cli]") {
  const auto file = (kData / "compare-tiny.yaml").string();
  const auto json = run("compare " + file + " --jobs 2 --format json", false);
  REQUIRE(json.exit_code == 0);
  const auto j = nlohmann::json::parse(json.output);
  const auto& platforms = j.at("platforms");
  REQUIRE(platforms.size() == 2);
  // hardware_specs.md: a DGX A100 has 8 GPUs (400 W TDP each); an IPU-POD16 16 IPUs (no power figure).
  const std::array<int, 2> devices = {8, 16};
  const std::array<double, 2> power_W = {8 * 400.0, 0.0};
  // tests/data/config/good/workload.yaml: 4 heads, 2 layers.
  constexpr int kHeads = 4, kLayers = 2;
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& p = platforms[i];
    INFO(p.at("platform").get<std::string>());
    CHECK(p.at("status") == "ok");
    CHECK(p.at("devices") == devices[i]);
    CHECK(p.at("power_W").get<double>() == Approx(power_W[i]));
    const auto& par = p.at("best").at("parallelism");
    CHECK(par.at("tp").get<int>() * par.at("pp").get<int>() * par.at("dp").get<int>() == devices[i]);
    CHECK(p.at("best").at("memory").at("fits") == true);
    CHECK(p.at("fidelity") == "step");
    // The micro-batch divides each replica's batch.
    const int per_replica = j.at("global_batch").get<int>() / par.at("dp").get<int>();
    CHECK(per_replica % p.at("best").at("training").at("micro_batch").get<int>() == 0);
    const auto& n = p.at("configurations");
    CHECK(n.at("considered").get<int>() ==
          n.at("simulated").get<int>() + n.at("oom").get<int>() + n.at("invalid").get<int>());
    // Micro-batches are powers of two dividing the (power-of-two) replica batches, so only layouts
    // are ever refused, once each.
    CHECK(n.at("invalid").get<int>() == refused_layouts(devices[i], kHeads, kLayers));
    CHECK(n.at("considered").get<int>() >= layouts(devices[i]));
    CHECK(n.at("failed").get<int>() == 0);
    const auto& tried = p.at("configurations_tried");
    CHECK(tried.size() == n.at("considered").get<std::size_t>());
    CHECK(std::count_if(tried.begin(), tried.end(), [](const auto& c) { return c.at("status") == "invalid"; }) ==
          n.at("invalid").get<int>());
    // The four parts of the busiest device's step add up to the step.
    const auto& b = p.at("breakdown");
    CHECK(b.at("compute_bound_s").get<double>() + b.at("memory_bound_s").get<double>() +
              b.at("bubble_s").get<double>() + b.at("exposed_comm_s").get<double>() ==
          Approx(p.at("best").at("step_time_s").get<double>()).epsilon(1e-9));
  }

  const auto text = run("compare " + file + " --jobs 2", false);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.output, Catch::Contains("DGX A100") && Catch::Contains("IPU-POD16"));
}

TEST_CASE("clearfog compare: a model that fits nowhere is reported as oom, not as a failure", "[compare][cli]") {
  const auto r = run("compare " + (kData / "compare-oom.yaml").string() + " --format json", false);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.output);
  REQUIRE(j.at("platforms").size() == 2);
  // workloads/gpt3-175b.yaml: 96 layers of hidden 12288. Adam in mixed precision keeps 16 B per
  // parameter (ZeRO paper, Sec. 3.1) and the layers alone have 12 l h^2 parameters; split over every
  // device at best, that is already far above 80 GB (A100) and 40 GB (WSE-2).
  const double layer_params = 12.0 * 96 * 12288.0 * 12288.0;
  const std::array<int, 2> devices = {8, 1};
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& p = j.at("platforms")[i];
    INFO(p.at("platform").get<std::string>());
    CHECK(p.at("status") == "oom");
    CHECK(p.at("bound") == "memory capacity");
    CHECK(p.at("best").is_null());
    CHECK(p.at("configurations").at("simulated") == 0);
    CHECK(p.at("configurations").at("oom").get<int>() >= 1);
    const auto& m = p.at("least_memory").at("memory");
    CHECK(m.at("total_B").get<double>() > m.at("capacity_B").get<double>());
    CHECK(m.at("total_B").get<double>() >= 16 * layer_params / devices[i]);
  }
  const auto text = run("compare " + (kData / "compare-oom.yaml").string(), false);
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.output, Catch::Contains("none fits") && Catch::Contains("memory capacity"));
}

TEST_CASE("clearfog compare: a bad comparison file exits 2 and says where", "[compare][cli]") {
  const auto r = run("compare " + (kData / "compare-bad.yaml").string(), true);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("compare-bad.yaml:6:14: micro_batch: must be an integer >= 1"));
  CHECK_THAT(r.output, Catch::Contains("compare-bad.yaml:7:1: devcies: unknown key"));
  // A platform file with a mistake is reported at its line, not counted as refused configurations.
  const std::string config = std::string(CLEARFOG_TEST_DATA_DIR) + "/config/";
  const auto bad_platform =
      run("compare --workload " + config + "good/workload.yaml --platforms " + config + "bad/unknown_key.yaml", true);
  CHECK(bad_platform.exit_code == 2);
  CHECK_THAT(bad_platform.output, Catch::Contains("unknown_key.yaml:8:5:"));
}

TEST_CASE("shipped comparison files load", "[compare]") {
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(CLEARFOG_SOURCE_DIR) / "scenarios/compare")) {
    if (e.path().extension() != ".yaml") continue;
    INFO(e.path().string());
    ++files;
    const auto request = clearfog::compare::load_compare_file(e.path());
    CHECK(fs::is_regular_file(request.workload));
    CHECK(request.platforms.size() >= 2);
    for (const auto& p : request.platforms) CHECK(fs::is_regular_file(p));
  }
  CHECK(files >= 2);
}
