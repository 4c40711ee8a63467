// The clearfog binary as a user runs it: exit codes, error locations, overrides, determinism.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "support/RunCli.hpp"

namespace {

using Outcome = clearfog::test::CliOutcome;

Outcome cli(const std::string& args) { return clearfog::test::run_cli(args); }
/// stdout alone: a run that lasts prints progress lines on stderr.
Outcome run_stdout(const std::string& args) { return clearfog::test::run_cli(args, false); }

std::string bad(const std::string& name) { return std::string(CLEARFOG_TEST_DATA_DIR) + "/config/bad/" + name; }
const std::string kQuickstart = std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/quickstart.yaml";

}  // namespace

TEST_CASE("cli: bad input exits with code 2 and says where", "[cli]") {
  SECTION("malformed YAML") {
    const auto r = cli("validate " + bad("malformed.yaml"));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("malformed.yaml:5:18: malformed YAML"));
  }
  SECTION("unknown key") {
    const auto r = cli("validate " + bad("unknown_key.yaml"));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("unknown_key.yaml:8:5: node.link.bandwith:") &&
                             Catch::Contains("did you mean \"bandwidth\""));
  }
  SECTION("missing unit") {
    const auto r = cli("validate " + bad("missing_unit.yaml"));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("missing_unit.yaml:8:16: node.link.bandwidth: missing unit"));
  }
  SECTION("negative bandwidth") {
    const auto r = cli("validate " + bad("negative_bandwidth.yaml"));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("negative_bandwidth.yaml:8:16: node.link.bandwidth: must be > 0"));
  }
  SECTION("dp that does not match the device count, through run") {
    const auto r = cli("run " + bad("dp_mismatch.yaml"));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("dp_mismatch.yaml:8:7: parallelism.dp:"));
  }
  SECTION("a bad override") {
    const auto r = cli("run " + kQuickstart + " --set training.global_bach=32");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("--set") && Catch::Contains("training.global_batch"));
  }
  SECTION("an unknown command-line option") {
    CHECK(cli("run " + kQuickstart + " --no-such-option").exit_code == 2);
  }
}

TEST_CASE("cli: --set changes the run like an edited file would", "[cli][simulation]") {
  const auto base = run_stdout("run " + kQuickstart + " --format json");
  const auto doubled = run_stdout("run " + kQuickstart + " --format json --set training.global_batch=128");
  REQUIRE(base.exit_code == 0);
  REQUIRE(doubled.exit_code == 0);
  const auto a = nlohmann::json::parse(base.output);
  const auto b = nlohmann::json::parse(doubled.output);
  CHECK(b["training"]["global_batch"] == 128);
  CHECK(b["training"]["micro_batches_per_replica"] == 2 * a["training"]["micro_batches_per_replica"].get<int>());
  // Twice the micro-batches: the compute of forward and backward doubles exactly.
  CHECK(b["compute"]["forward_s"].get<double>() == Approx(2 * a["compute"]["forward_s"].get<double>()).epsilon(1e-12));
}

TEST_CASE("cli: the same scenario gives byte-identical output", "[cli][simulation]") {
  for (const char* format : {"text", "json"}) {
    const auto first = run_stdout("run " + kQuickstart + " --format " + format);
    const auto second = run_stdout("run " + kQuickstart + " --format " + format);
    REQUIRE(first.exit_code == 0);
    CHECK(first.output == second.output);
  }
}

TEST_CASE("cli: --set training.attention=fused shortens the gpt-7.5b step", "[cli][simulation]") {
  const std::string scenario = std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/gpt-7.5b-tp.yaml";
  const auto unfused = run_stdout("run " + scenario + " --format json");
  const auto fused = run_stdout("run " + scenario + " --format json --set training.attention=fused");
  REQUIRE(unfused.exit_code == 0);
  REQUIRE(fused.exit_code == 0);
  const auto u = nlohmann::json::parse(unfused.output);
  const auto f = nlohmann::json::parse(fused.output);
  CHECK(u["training"]["attention"] == "unfused");
  CHECK(f["training"]["attention"] == "fused");
  // No s^2 traffic in either pass: both get faster, so does the step.
  CHECK(f["compute"]["forward_s"].get<double>() < u["compute"]["forward_s"].get<double>());
  CHECK(f["compute"]["backward_s"].get<double>() < u["compute"]["backward_s"].get<double>());
  CHECK(f["step_time_s"].get<double>() < u["step_time_s"].get<double>());
  // Same model FLOPs (Korthikanti Eq. 7), so a shorter step is a higher MFU.
  CHECK(f["model_flops_per_step"].get<double>() == u["model_flops_per_step"].get<double>());
  CHECK(f["mfu"].get<double>() > u["mfu"].get<double>());
  // No s^2 activations: the memory estimate drops.
  CHECK(f["memory"]["activations_B"].get<double>() < u["memory"]["activations_B"].get<double>());
  // A choice outside the two is a configuration error naming the key.
  const auto bad_choice = cli("run " + scenario + " --set training.attention=flash");
  CHECK(bad_choice.exit_code == 2);
  CHECK_THAT(bad_choice.output, Catch::Contains("training.attention"));
}

TEST_CASE("cli validate --set: the file is checked as run --set would see it", "[cli]") {
  // The quickstart's 8 devices as dp 8: the 4 x 2 layout still fills them, 3 does not.
  CHECK(cli("validate " + kQuickstart).exit_code == 0);
  CHECK(cli("validate " + kQuickstart + " --set parallelism.dp=4 --set parallelism.tp=2").exit_code == 0);
  const auto r = cli("validate " + kQuickstart + " --set parallelism.dp=3");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("parallelism.dp") && Catch::Contains("--set"));
  const auto unknown = cli("validate " + kQuickstart + " --set training.global_bach=64");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("global_batch"));  // the closest known key is suggested
  const auto sweep = cli("validate " + std::string(CLEARFOG_SOURCE_DIR) +
                         "/tests/sweep/data/twelve.yaml --set training.global_batch=64");
  CHECK(sweep.exit_code == 2);
  CHECK_THAT(sweep.output, Catch::Contains("--set") && Catch::Contains("sweep file"));
}

TEST_CASE("cli run: a platform without collectives figures is flagged as ideal", "[cli]") {
  // dgx-a100.yaml gives collectives.efficiency (fitted to nccl-tests); pcie-gen4-8gpu.yaml does not.
  const auto calibrated = run_stdout("run " + kQuickstart + " --format json");
  const auto ideal = run_stdout("run " + kQuickstart + " --set platform=" + std::string(CLEARFOG_SOURCE_DIR) +
                                "/platforms/pcie-gen4-8gpu.yaml --format json");
  REQUIRE(calibrated.exit_code == 0);
  REQUIRE(ideal.exit_code == 0);
  CHECK(nlohmann::json::parse(calibrated.output)["simulation"]["collectives_calibrated"] == true);
  CHECK(nlohmann::json::parse(ideal.output)["simulation"]["collectives_calibrated"] == false);
  const auto text = run_stdout("run " + kQuickstart + " --set platform=" + std::string(CLEARFOG_SOURCE_DIR) +
                               "/platforms/pcie-gen4-8gpu.yaml");
  CHECK_THAT(text.output, Catch::Contains("ideal: the platform gives no collectives.efficiency"));
  CHECK_THAT(run_stdout("run " + kQuickstart).output, !Catch::Contains("ideal: the platform"));
}

TEST_CASE("cli run: collectives.fidelity auto is step up to 16 devices and fluid above, and says so", "[cli]") {
  const std::string cluster = " --set platform=" + std::string(CLEARFOG_SOURCE_DIR) + "/platforms/dgx-a100-cluster.yaml";
  for (const int nodes : {2, 4}) {
    const int devices = 8 * nodes;
    const std::string args = "run " + kQuickstart + cluster + " --set platform.fabric.nodes=" + std::to_string(nodes) +
                             " --set parallelism.dp=" + std::to_string(devices) +
                             " --set training.global_batch=" + std::to_string(8 * devices);
    const auto j = nlohmann::json::parse(run_stdout(args + " --format json").output);
    INFO(devices << " devices");
    CHECK(j["simulation"]["fidelity_auto"] == true);
    CHECK(j["simulation"]["collectives_fidelity"] == (devices > 16 ? "fluid" : "step"));
    CHECK((run_stdout(args).output.find("fluid collectives (collectives.fidelity auto") != std::string::npos) ==
          (devices > 16));
  }
}
