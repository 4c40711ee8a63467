// Bad configuration files: every problem is reported with its file, line, column and key path and a
// message that says what is wrong and what is allowed. Fixtures live in tests/data/config/bad.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "topology/NodeTopologyType.hpp"
#include "config/ConfigLoader.hpp"
#include "config/DocumentReader.hpp"
#include "core/Errors.hpp"
#include "support/TestPlatforms.hpp"
#include "support/ConfigDiagnostics.hpp"

using namespace clearfog;
using namespace clearfog::config;
using Catch::Matchers::Contains;

using clearfog::test::check_diagnostic;
using clearfog::test::diagnostics_of;

namespace {

std::string fixture(const std::string& relative) { return test::config_fixture(relative); }

}  // namespace

TEST_CASE("config::Loader: reports malformed YAML at the parser's position", "[config]") {
  const auto file = fixture("bad/malformed.yaml");
  const auto diags = diagnostics_of([&] { load_platform(file); });
  REQUIRE(diags.size() == 1);
  // Line 5 is "  link: bandwidth: 300 GB/s"; the second ':' (column 18) is the error.
  check_diagnostic(diags[0], file, 5, 18, "", "malformed YAML: illegal map value");
}

TEST_CASE("config::Loader: rejects an unknown key with a suggestion", "[config]") {
  const auto file = fixture("bad/unknown_key.yaml");
  const auto diags = diagnostics_of([&] { load_platform(file); });
  // The misspelt key is not reported a second time as a missing "bandwidth".
  REQUIRE(diags.size() == 1);
  check_diagnostic(diags[0], file, 8, 5, "node.link.bandwith",
                   "unknown key \"bandwith\"; did you mean \"bandwidth\"? allowed here: bandwidth, latency");
}

TEST_CASE("config::Loader: rejects bad quantities", "[config]") {
  SECTION("missing unit") {
    const auto file = fixture("bad/missing_unit.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 8, 16, "node.link.bandwidth",
                     "missing unit: \"300\"; expected a bandwidth such as \"300 GB/s\"");
  }
  SECTION("negative bandwidth") {
    const auto file = fixture("bad/negative_bandwidth.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 8, 16, "node.link.bandwidth", "must be > 0, got \"-300 GB/s\"");
  }
}

TEST_CASE("config::Loader: reports a missing required key at its section", "[config]") {
  const auto file = fixture("bad/missing_required.yaml");
  const auto diags = diagnostics_of([&] { load_workload(file); });
  REQUIRE(diags.size() == 1);
  check_diagnostic(diags[0], file, 1, 1, "hidden", "missing required key \"hidden\" (an integer >= 1)");
}

TEST_CASE("config::Loader: rejects fabric keys on a single node", "[config]") {
  const auto file = fixture("bad/fabric_single_node.yaml");
  const auto diags = diagnostics_of([&] { load_platform(file); });
  REQUIRE(diags.size() == 4);
  const std::string message =
      "only used when fabric.nodes > 1; fabric.nodes is 1 here; set fabric.nodes to the number of nodes";
  check_diagnostic(diags[0], file, 11, 13, "fabric.topology", message);
  check_diagnostic(diags[1], file, 12, 16, "fabric.nic.count", message);
  check_diagnostic(diags[2], file, 12, 30, "fabric.nic.bandwidth", message);
  check_diagnostic(diags[3], file, 12, 48, "fabric.nic.latency", message);
}

TEST_CASE("config::Loader: checks a scenario against its platform", "[config]") {
  SECTION("dp does not match the device count") {
    const auto file = fixture("bad/dp_mismatch.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 8, 7, "parallelism.dp",
                     "dp*tp*pp = 2*1*1 = 2 must equal the platform's 4 devices (node.devices 4 x fabric.nodes 1)");
  }
  SECTION("dp does not match the devices of several nodes") {
    const auto file = fixture("bad/multi_node_dp.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 8, 7, "parallelism.dp",
                     "dp*tp*pp = 4*1*1 = 4 must equal the platform's 8 devices (node.devices 4 x fabric.nodes 2)");
  }
  SECTION("layers not divisible by pp") {
    const auto file = fixture("bad/tp.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 9, 7, "parallelism.pp",
                     "the workload's 2 layers are not divisible by pp*virtual_stages = 4*1 = 4; give "
                     "parallelism.layer_split, parallelism.partition: balanced, or change pp");
  }
  SECTION("layer_split of the wrong length and sum, interleaved with m % pp != 0") {
    const auto file = fixture("bad/layer_split.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 3);
    std::string all;
    for (const auto& d : diags) all += d.message + "\n";
    CHECK_THAT(all, Contains("must have pp*virtual_stages = 2*2 = 4 entries, got 3"));
    CHECK_THAT(all, Contains("entries sum to 3, must equal the workload's 2 layers"));
    CHECK_THAT(all, Contains("micro-batches per pipeline (3) to be a multiple of pp 2"));
  }
  SECTION("batch not divisible, precision without a peak") {
    const auto file = fixture("bad/batch_precision.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 2);
    check_diagnostic(diags[0], file, 6, 17, "training.global_batch",
                     "global_batch 20 must be divisible by dp*micro_batch = 4*2 = 8");
    check_diagnostic(diags[1], file, 8, 14, "training.precision", "has no peak for fp8");
    CHECK_THAT(diags[1].message, Contains("allowed: fp32, bf16"));
  }
}

TEST_CASE("config::Loader: checks references", "[config]") {
  SECTION("referenced file of the wrong kind") {
    const auto file = fixture("bad/wrong_kind_reference.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 3, 11, "platform",
                     "is a workload file (kind: workload); expected a platform file");
  }
  SECTION("referenced file missing: reported at the reference") {
    const auto file = fixture("bad/missing_file.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 3, 11, "platform",
                     "cannot read \"" + fixture("good/no-such-platform.yaml") + "\": no such file");
  }
  SECTION("root file of the wrong kind") {
    const auto file = fixture("bad/wrong_root_kind.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 1, 7, "kind", "this is a workload document, expected a platform");
  }
  SECTION("missing root file") {
    const auto file = fixture("bad/no-such-file.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].location.file == file);
    CHECK_THAT(diags[0].message, Contains("no such file"));
  }
  SECTION("errors in inline documents carry the reference key") {
    const auto file = fixture("bad/inline.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 2);
    check_diagnostic(diags[0], file, 9, 23, "platform.node.link.bandwidth", "must be > 0, got \"0 GB/s\"");
    check_diagnostic(diags[1], file, 16, 10, "workload.heads", "hidden 250 must be divisible by heads 4");
  }
}

TEST_CASE("config::Loader: transformer shapes that do not divide are located errors", "[config]") {
  SECTION("the workload's own keys") {
    const auto file = fixture("bad/transformer_shapes.yaml");
    const auto diags = diagnostics_of([&] { load_workload(file); });
    REQUIRE(diags.size() == 2);
    check_diagnostic(diags[0], file, 7, 11, "kv_heads",
                     "kv_heads 3 must divide heads 8 (each key/value head serves heads/kv_heads query heads)");
    check_diagnostic(diags[1], file, 11, 5, "overrides[0]", "covers layers 3 to 4, but the model has layers 0 to 3");
  }
  SECTION("against tensor and sequence parallelism: validate rejects what the planner cannot split") {
    const auto file = fixture("bad/transformer_tp.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 3);
    check_diagnostic(diags[0], file, 18, 7, "parallelism.tp", "tp 4 must divide the workload's kv_heads 2");
    check_diagnostic(diags[1], file, 18, 7, "parallelism.tp", "tp 4 must divide the workload's ffn_hidden 4097");
    check_diagnostic(diags[2], file, 19, 22, "parallelism.sequence_parallel",
                     "seq_length 130 must be divisible by tp 4");
  }
  SECTION("experts against expert parallelism: top_k, ep and ZeRO-3") {
    const auto file = fixture("bad/moe_ep.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 3);
    check_diagnostic(diags[0], file, 18, 7, "parallelism.ep", "ep 4 must divide the workload's experts 6");
    check_diagnostic(diags[1], file, 19, 15, "parallelism.zero_stage", "ZeRO-3 with expert parallelism (ep 4)");
    check_diagnostic(diags[2], file, 13, 10, "workload.top_k", "top_k 8 must be at most experts 6");
  }
}

TEST_CASE("config::Loader: reports every error of a file at once", "[config]") {
  const auto file = fixture("bad/several_errors.yaml");
  const auto diags = diagnostics_of([&] { load_scenario(file); });
  REQUIRE(diags.size() == 4);
  check_diagnostic(diags[0], file, 7, 16, "training.micro_batch", "expected an integer >= 1, got \"eight\"");
  check_diagnostic(diags[1], file, 8, 14, "training.optimizer", "unknown value \"adamw\"; allowed: adam, sgd");
  check_diagnostic(diags[2], file, 9, 16, "training.bucket_size", "missing unit: \"25\"; expected a data size");
  check_diagnostic(diags[3], file, 12, 3, "parallelism.pipeline", "unknown key \"pipeline\"; allowed here: dp, tp, pp");
}

TEST_CASE("config::Loader: ConfigError formats file:line:col: key: message", "[config]") {
  const auto file = fixture("bad/negative_bandwidth.yaml");
  try {
    load_platform(file);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == file + ":8:16: node.link.bandwidth: must be > 0, got \"-300 GB/s\"");
  }
}

TEST_CASE("config::Loader: remembers which values were given and which defaulted", "[config]") {
  std::vector<Diagnostic> diags;
  const auto doc = read_document_file(fixture("good/scenario.yaml"), DocumentKind::Scenario, {}, diags);
  REQUIRE(diags.empty());
  REQUIRE(doc);
  CHECK(doc->at("training.global_batch").origin == Origin::Given);
  CHECK(doc->at("training.micro_batch").origin == Origin::Defaulted);
  CHECK(doc->at("training.micro_batch").as_integer() == 1);
  CHECK(doc->at("training.bucket_size").as_number() == Approx(25e6));
  const ConfigDocument* workload = doc->child("workload");
  REQUIRE(workload);
  CHECK(workload->at("ffn_hidden").is_derived());

  const auto s = load_scenario(fixture("good/scenario.yaml"));
  CHECK(test::transformer(s.workload).ffn_hidden == 4 * test::transformer(s.workload).hidden);
  CHECK(s.training.precision == DType::bf16);
  CHECK(s.training.optimizer == Optimizer::Adam);
  CHECK(s.parallelism.tp == 1);
  CHECK(s.platform.node.topology == clearfog::topology::node_topology("switch"));
  CHECK(s.platform.accelerator.sram_shared_B == 0.0);
  CHECK(s.platform.accelerator.power_W == 0.0);  // absent: unknown
}

TEST_CASE("config::validate_file: finds the kind and checks the file as that kind", "[config]") {
  SECTION("good files of each kind") {
    CHECK(validate_file(fixture("good/accelerator.yaml")) == DocumentKind::Accelerator);
    CHECK(validate_file(fixture("good/platform.yaml")) == DocumentKind::Platform);
    CHECK(validate_file(fixture("good/workload.yaml")) == DocumentKind::Workload);
    CHECK(validate_file(fixture("good/scenario.yaml")) == DocumentKind::Scenario);
  }
  SECTION("no kind") {
    const auto file = fixture("bad/no_kind.yaml");
    const auto diags = diagnostics_of([&] { validate_file(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 1, 1, "kind", "missing key \"kind\"; every clearfog file starts with \"kind: K\"");
  }
  SECTION("not a mapping") {
    const auto file = fixture("bad/not_a_mapping.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 1, 1, "",
                     "expected a platform mapping that starts with \"kind: platform\", got a list");
  }
  SECTION("errors of a valid kind") {
    const auto file = fixture("bad/negative_bandwidth.yaml");
    const auto diags = diagnostics_of([&] { validate_file(file); });
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].key == "node.link.bandwidth");
  }
}
