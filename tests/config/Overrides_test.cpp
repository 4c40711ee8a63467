// --set key.path=value: applied while reading, with the same checks as the file, located at "--set".
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "topology/NodeTopologyType.hpp"
#include "topology/nodes/CustomNode.hpp"
#include "topology/nodes/TorusNode.hpp"
#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"
#include "support/TestPlatforms.hpp"
#include "support/ConfigDiagnostics.hpp"

using namespace clearfog;
using namespace clearfog::config;
using Catch::Matchers::Contains;

using clearfog::test::diagnostics_of;

namespace {

std::string fixture(const std::string& relative) { return test::config_fixture(relative); }

void check_override_diagnostic(const Diagnostic& d, const std::string& key, const std::string& fragment) {
  INFO(d.str());
  CHECK(d.location.file == "--set");
  CHECK(d.location.line == 0);
  CHECK(d.key == key);
  CHECK_THAT(d.message, Contains(fragment));
}

}  // namespace

TEST_CASE("config::parse_override: splits key=value", "[config]") {
  SECTION("plain") {
    const auto o = parse_override("platform.node.link.bandwidth=150 GB/s");
    CHECK(o.key == "platform.node.link.bandwidth");
    CHECK(o.value == "150 GB/s");
  }
  SECTION("the value may contain '='") { CHECK(parse_override("name=a=b").value == "a=b"); }
  SECTION("missing '='") { CHECK_THROWS_AS(parse_override("parallelism.dp"), ConfigError); }
  SECTION("missing key") { CHECK_THROWS_AS(parse_override("=3"), ConfigError); }
}

TEST_CASE("config::Loader: applies valid overrides", "[config]") {
  const auto file = fixture("good/scenario.yaml");
  SECTION("a value in a referenced file") {
    const auto s = load_scenario(file, {parse_override("platform.node.link.bandwidth=150 GB/s")});
    CHECK(s.platform.node.link.bandwidth_Bps == Approx(150e9));
  }
  SECTION("two levels down, into the accelerator") {
    const auto s = load_scenario(file, {parse_override("platform.accelerator.memory.bandwidth=2TB/s")});
    CHECK(s.platform.accelerator.memory_bandwidth_Bps == Approx(2e12));
  }
  SECTION("keys absent from the file") {
    const auto s = load_scenario(
        file, {parse_override("training.micro_batch=2"), parse_override("training.optimizer=sgd"),
               parse_override("workload.ffn_hidden=1000")});
    CHECK(s.training.micro_batch == 2);
    CHECK(s.training.optimizer == Optimizer::Sgd);
    CHECK(test::transformer(s.workload).ffn_hidden == 1000);
  }
  SECTION("several keys of a section at once") {
    const auto s = load_scenario(file, {parse_override("training={global_batch: 32, micro_batch: 4}")});
    CHECK(s.training.global_batch == 32);
    CHECK(s.training.micro_batch == 4);
  }
  SECTION("overriding a platform file directly") {
    const auto p = load_platform(fixture("good/platform.yaml"), {parse_override("node.devices=2")});
    CHECK(p.node.devices == 2);
  }
}

TEST_CASE("config::Loader: replaces a reference with an override", "[config]") {
  // A path given with --set is relative to the working directory, so this test passes an absolute one.
  const auto h100 = (std::filesystem::path(CLEARFOG_SOURCE_DIR) / "platforms/dgx-h100.yaml").string();
  SECTION("by a file, with overrides into the new file") {
    const auto s = load_scenario(fixture("good/scenario.yaml"),
                                 {parse_override("platform=" + h100), parse_override("parallelism.dp=8"),
                                  parse_override("platform.node.link.latency=2 us")});
    CHECK(s.platform.accelerator.name == "NVIDIA H100 SXM5 80GB");
    CHECK(s.platform.node.link.latency_s == Approx(2e-6));
  }
  SECTION("by a missing file") {
    const auto diags = diagnostics_of(
        [&] { load_scenario(fixture("good/scenario.yaml"), {parse_override("platform=no/such/platform.yaml")}); });
    REQUIRE(diags.size() == 1);
    check_override_diagnostic(diags[0], "platform", "cannot read \"no/such/platform.yaml\": no such file");
  }
}

TEST_CASE("config::Loader: rejects bad overrides at --set", "[config]") {
  const auto file = fixture("good/scenario.yaml");
  SECTION("unknown key, with a suggestion") {
    const auto diags = diagnostics_of([&] { load_scenario(file, {parse_override("training.golbal_batch=32")}); });
    REQUIRE(diags.size() == 1);
    check_override_diagnostic(diags[0], "training.golbal_batch",
                              "unknown key \"training.golbal_batch\"; did you mean \"training.global_batch\"?");
  }
  SECTION("unknown key inside a referenced document") {
    const auto diags =
        diagnostics_of([&] { load_scenario(file, {parse_override("platform.node.link.bandwith=1 GB/s")}); });
    REQUIRE(diags.size() == 1);
    check_override_diagnostic(diags[0], "platform.node.link.bandwith",
                              "did you mean \"platform.node.link.bandwidth\"? allowed here: bandwidth, latency");
  }
  SECTION("bad value") {
    const auto diags =
        diagnostics_of([&] { load_scenario(file, {parse_override("platform.node.link.bandwidth=-1 GB/s")}); });
    REQUIRE(diags.size() == 1);
    check_override_diagnostic(diags[0], "platform.node.link.bandwidth", "must be > 0, got \"-1 GB/s\"");
  }
  SECTION("value without its unit") {
    const auto diags = diagnostics_of([&] { load_scenario(file, {parse_override("training.bucket_size=25")}); });
    REQUIRE(diags.size() == 1);
    check_override_diagnostic(diags[0], "training.bucket_size", "missing unit: \"25\"");
  }
  SECTION("value that breaks a cross-key check") {
    const auto diags = diagnostics_of([&] { load_scenario(file, {parse_override("parallelism.tp=2")}); });
    REQUIRE(diags.size() == 1);
    CHECK_THAT(diags[0].message, Contains("dp*tp*pp = 4*2*1 = 8 must equal the platform's 4 devices"));
  }
  SECTION("value that is not valid YAML") {
    const auto diags = diagnostics_of([&] { load_scenario(file, {parse_override("name=[")}); });
    REQUIRE(diags.size() == 1);
    check_override_diagnostic(diags[0], "name", "cannot read the value \"[\" as YAML");
  }
  SECTION("every bad override is reported, together with the file's errors") {
    const auto platform_diags = diagnostics_of([&] {
      load_platform(fixture("bad/negative_bandwidth.yaml"),
                    {parse_override("node.devices=zero"), parse_override("fabric.nic.count=2")});
    });
    REQUIRE(platform_diags.size() == 3);
    CHECK(platform_diags[0].location.line == 8);
    check_override_diagnostic(platform_diags[1], "node.devices", "expected an integer >= 1, got \"zero\"");
    check_override_diagnostic(platform_diags[2], "fabric.nic.count",
                              "only used when fabric.nodes > 1; fabric.nodes is 1 here");
  }
}

TEST_CASE("config::Loader: overrides list keys with flow YAML", "[config]") {
  const auto torus = [](const std::string& dims) {
    return std::vector<Override>{parse_override("node.topology=torus"), parse_override("node.devices=8"),
                                 parse_override("node.torus.dims=" + dims)};
  };
  SECTION("a list of integers replaces the whole list") {
    const auto p = load_platform(fixture("good/platform.yaml"), torus("[2,2,2]"));
    CHECK(p.node.topology == clearfog::topology::node_topology("torus"));
    CHECK(p.node.params_as<topology::nodes::GridParams>().dims == std::vector<int>{2, 2, 2});
  }
  SECTION("a bad element is named with its index") {
    const auto diags = diagnostics_of([&] { load_platform(fixture("good/platform.yaml"), torus("[2, x, 2]")); });
    REQUIRE(diags.size() == 1);
    check_override_diagnostic(diags[0], "node.torus.dims[1]", "expected an integer >= 1, got \"x\"");
  }
  SECTION("a scalar where a list belongs") {
    const auto diags = diagnostics_of([&] { load_platform(fixture("good/platform.yaml"), torus("8")); });
    REQUIRE(diags.size() == 1);
    check_override_diagnostic(diags[0], "node.torus.dims", "expected a list of integers >= 1, such as [4, 4], got \"8\"");
  }
  SECTION("a list of records, into a referenced platform") {
    const auto s = load_scenario(
        fixture("good/scenario.yaml"),
        {parse_override("platform=" + fixture("good/custom-platform.yaml")),
         parse_override("platform.node.custom.edges=[{from: dev0, to: dev1, bandwidth: 10 GB/s, latency: 1 us}, "
                        "{from: dev1, to: dev2, bandwidth: 10 GB/s, latency: 1 us}, "
                        "{from: dev2, to: dev3, bandwidth: 10 GB/s, latency: 1 us}]")});
    REQUIRE(s.platform.node.params_as<topology::nodes::CustomParams>().edges.size() == 3);
    CHECK(s.platform.node.params_as<topology::nodes::CustomParams>().edges[2].from == "dev2");
    CHECK(s.platform.node.params_as<topology::nodes::CustomParams>().edges[2].link.bandwidth_Bps == Approx(10e9));
  }
  SECTION("a record field without its unit") {
    const auto diags = diagnostics_of([&] {
      load_platform(fixture("good/custom-platform.yaml"),
                    {parse_override("node.custom.edges=[{from: dev0, to: dev1, bandwidth: 10, latency: 1 us}]")});
    });
    // Only the element: the rejected list is not also reported as missing.
    REQUIRE(diags.size() == 1);
    check_override_diagnostic(diags[0], "node.custom.edges[0].bandwidth", "missing unit: \"10\"");
  }
}
