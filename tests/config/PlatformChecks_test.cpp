// Platform files beyond one switched node: lists (torus dimensions, fat-tree levels, custom edges),
// keys that belong to one topology, node and fabric shapes that do not add up, and the scenario's
// collective algorithm against what the platform offers. Fixtures live in tests/data/config.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "topology/NodeTopologyType.hpp"
#include "topology/nodes/CustomNode.hpp"
#include "collectives/CollectiveAlgorithmType.hpp"
#include "config/ConfigLoader.hpp"
#include "config/DocumentReader.hpp"
#include "core/Errors.hpp"
#include "support/ConfigDiagnostics.hpp"

using namespace clearfog;
using namespace clearfog::config;
using Catch::Matchers::Contains;

using clearfog::test::check_diagnostic;
using clearfog::test::diagnostics_of;

namespace {

std::string fixture(const std::string& relative) { return test::config_fixture(relative); }

}  // namespace

TEST_CASE("config::Loader: reads lists of names and of records", "[config]") {
  const auto file = fixture("good/custom-platform.yaml");
  const auto p = load_platform(file);
  CHECK(p.node.topology == clearfog::topology::node_topology("custom"));
  CHECK(p.node.params_as<topology::nodes::CustomParams>().switches == std::vector<std::string>{"sw0", "sw1"});
  REQUIRE(p.node.params_as<topology::nodes::CustomParams>().edges.size() == 5);
  // Flow and block records read alike.
  CHECK(p.node.params_as<topology::nodes::CustomParams>().edges[0].from == "dev0");
  CHECK(p.node.params_as<topology::nodes::CustomParams>().edges[0].to == "sw0");
  CHECK(p.node.params_as<topology::nodes::CustomParams>().edges[3].from == "dev3");
  CHECK(p.node.params_as<topology::nodes::CustomParams>().edges[3].link.bandwidth_Bps == Approx(50e9));
  CHECK(p.node.params_as<topology::nodes::CustomParams>().edges[4].link.bandwidth_Bps == Approx(25e9));
  CHECK(p.node.params_as<topology::nodes::CustomParams>().edges[4].link.latency_s == Approx(500e-9));
  CHECK(p.node.link.bandwidth_Bps == 0.0);  // not used by custom

  SECTION("every element and field keeps its location and key") {
    std::vector<Diagnostic> diags;
    const auto doc = read_document_file(file, DocumentKind::Platform, {}, diags);
    REQUIRE(diags.empty());
    const ConfigValue& edges = doc->at("node.custom.edges");
    REQUIRE(edges.as_list().size() == 5);
    const ConfigValue& block = edges.as_list()[3];
    CHECK(block.key == "node.custom.edges[3]");
    CHECK(block.location.line == 15);
    const ConfigValue* bandwidth = block.field("bandwidth");
    REQUIRE(bandwidth);
    CHECK(bandwidth->key == "node.custom.edges[3].bandwidth");
    CHECK(bandwidth->location.line == 17);
    CHECK(bandwidth->location.column == 20);
    CHECK(bandwidth->text == "50 GB/s");
    CHECK(doc->at("node.custom.switches").text == "[sw0, sw1]");
  }
}

TEST_CASE("config::Loader: a platform of several nodes, with fabric defaults", "[config]") {
  const auto p = load_platform(fixture("good/two-nodes.yaml"));
  CHECK(p.fabric.nodes == 2);
  CHECK(p.device_count() == 2 * 4);
  CHECK(p.fabric.topology == FabricTopology::FatTree);
  CHECK(p.fabric.nic_count == 2);
  CHECK(p.fabric.nic.bandwidth_Bps == Approx(25e9));
  CHECK(p.fabric.rail_optimized);
  // Derived: the node's fabric link carries all its NICs; one switch joining both nodes.
  CHECK(p.fabric.link.bandwidth_Bps == Approx(p.fabric.nic_count * p.fabric.nic.bandwidth_Bps));
  CHECK(p.fabric.link.latency_s == p.fabric.nic.latency_s);
  CHECK(p.fabric.fat_tree_down == std::vector<int>{p.fabric.nodes});
  CHECK(p.fabric.fat_tree_up == std::vector<int>{1});
  CHECK(p.fabric.fat_tree_parallel == std::vector<int>{1});
  CHECK_FALSE(p.fabric.in_network_reduction);
  // Calibration defaults: the nominal links.
  CHECK(p.collectives.simple.efficiency == 1.0);
  CHECK(p.collectives.simple.step_overhead_s == 0.0);
  CHECK(p.collectives.chunk_B == 0.0);
  CHECK_FALSE(p.collectives.protocol(Protocol::LL, true).has_value());
  CHECK_FALSE(p.collectives.protocol(Protocol::LL128, false).has_value());
  CHECK(p.collectives.arch == GpuArch::Ampere);
}

TEST_CASE("config::Loader: checks list elements", "[config]") {
  SECTION("a torus with a zero and a negative extent: each reported at its element") {
    const auto file = fixture("bad/torus_zero_dim.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    // The rejected list is not reported a second time as missing.
    REQUIRE(diags.size() == 2);
    check_diagnostic(diags[0], file, 10, 15, "node.torus.dims[1]", "must be >= 1, got \"0\"");
    check_diagnostic(diags[1], file, 10, 21, "node.torus.dims[3]", "must be >= 1, got \"-1\"");
  }
  SECTION("custom edges: a field without unit, a misspelt field, an element that is not a mapping") {
    const auto file = fixture("bad/custom_edge_fields.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 3);
    check_diagnostic(diags[0], file, 13, 43, "node.custom.edges[3].bandwidth",
                     "missing unit: \"50\"; expected a bandwidth such as \"300 GB/s\"");
    check_diagnostic(diags[1], file, 14, 32, "node.custom.edges[4].bandwith",
                     "unknown key \"bandwith\"; did you mean \"bandwidth\"? allowed here: from, to, bandwidth, latency");
    check_diagnostic(diags[2], file, 15, 9, "node.custom.edges[5]",
                     "expected a mapping with keys from, to, bandwidth, latency, got \"dev0\"");
  }
  SECTION("scalars and mappings where lists belong") {
    const auto file = fixture("bad/list_shapes.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 2);
    check_diagnostic(diags[0], file, 9, 15, "node.custom.switches", "expected a list of names, such as [a, b], got \"sw0\"");
    check_diagnostic(diags[1], file, 10, 12, "node.custom.edges",
                     "expected a list of mappings with keys from, to, bandwidth, latency, got a mapping");
  }
}

TEST_CASE("config::Loader: keys of one topology are rejected with another, and required with it", "[config]") {
  SECTION("in_switch_reduction and torus.dims on a ring") {
    const auto file = fixture("bad/wrong_topology_key.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 2);
    check_diagnostic(diags[0], file, 9, 24, "node.in_switch_reduction",
                     "only used when node.topology is switch; node.topology is ring here");
    check_diagnostic(diags[1], file, 11, 11, "node.torus.dims",
                     "only used when node.topology is torus; node.topology is ring here");
  }
  SECTION("a torus without link and dimensions: reported at the node section") {
    const auto file = fixture("bad/missing_topology_keys.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 3);
    check_diagnostic(diags[0], file, 5, 1, "node.link.bandwidth",
                     "missing key \"bandwidth\", required when node.topology is not custom (a bandwidth > 0");
    check_diagnostic(diags[1], file, 5, 1, "node.link.latency", "missing key \"latency\"");
    check_diagnostic(diags[2], file, 5, 1, "node.torus.dims",
                     "missing key \"dims\", required when node.topology is torus (a list of integers >= 1");
  }
  SECTION("a section of the wrong shape: its keys are not also reported missing") {
    const auto diags = diagnostics_of([&] {
      load_platform(fixture("good/platform.yaml"),
                    {parse_override("node.topology=torus"), parse_override("node.torus=4")});
    });
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].key == "node.torus");
    CHECK_THAT(diags[0].message, Contains("expected a mapping with keys dims, got \"4\""));
  }
  SECTION("a torus fabric without dimensions") {
    const auto file = fixture("bad/torus_fabric.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 8, 1, "fabric.torus.dims",
                     "missing key \"dims\", required when fabric.nodes > 1 and fabric.topology is torus");
  }
}

TEST_CASE("config::Loader: node shapes must add up", "[config]") {
  SECTION("torus dimensions whose product is not the device count") {
    const auto file = fixture("bad/torus_product.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 11, 7, "node.torus.dims",
                     "the product of the dimensions 2*2 = 4 must equal node.devices 8");
  }
  SECTION("a hybrid cube-mesh of 4 devices") {
    const auto file = fixture("bad/cube_mesh.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 6, 12, "node.devices",
                     "topology hybrid-cube-mesh joins exactly 8 devices (the DGX-1 layout), got 4");
  }
  SECTION("PCIe switches that do not divide the devices, in an inline platform") {
    const auto file = fixture("bad/node_shapes.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 11, 22, "platform.node.pcie.switches",
                     "6 devices cannot be spread evenly over 4 PCIe switches; allowed: a divisor of 6 (1, 2, 3, 6)");
  }
  SECTION("a custom edge to a device and a switch that do not exist") {
    const auto file = fixture("bad/custom_unknown_device.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 2);
    check_diagnostic(diags[0], file, 13, 16, "node.custom.edges[2].from",
                     "unknown device or switch \"dev2\"; allowed: dev0, dev1, sw0");
    check_diagnostic(diags[1], file, 13, 26, "node.custom.edges[2].to",
                     "unknown device or switch \"sw1\"; allowed: dev0, dev1, sw0");
  }
  SECTION("custom devices not reachable from dev0") {
    const auto file = fixture("bad/custom_unreachable.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 10, 7, "node.custom.edges", "dev2, dev3 are not reachable from dev0");
  }
}

TEST_CASE("config::Loader: fabric shapes must add up", "[config]") {
  SECTION("NICs that do not divide the devices; fat-tree levels that do not multiply to the nodes") {
    const auto file = fixture("bad/nic_count.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 2);
    check_diagnostic(diags[0], file, 11, 12, "fabric.nic.count",
                     "8 devices cannot be spread over 3 NICs; allowed: a divisor of 8 (1, 2, 4, 8)");
    check_diagnostic(diags[1], file, 15, 11, "fabric.fat_tree.down",
                     "the product of the down counts 2*3 = 6 must equal fabric.nodes 4");
  }
  SECTION("fat-tree up counts for fewer levels than down") {
    const auto file = fixture("bad/fat_tree.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 2);
    check_diagnostic(diags[0], file, 12, 11, "fabric.fat_tree.down", "4*2 = 8 must equal fabric.nodes 16");
    check_diagnostic(diags[1], file, 13, 9, "fabric.fat_tree.up",
                     "has 1 entry; give one per level of fabric.fat_tree.down, which has 2");
  }
  SECTION("a dragonfly of the wrong size, with fat-tree keys") {
    const auto file = fixture("bad/fabric_shapes.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 2);
    check_diagnostic(diags[0], file, 21, 11, "fabric.fat_tree.down",
                     "only used when fabric.topology is fat-tree; fabric.topology is dragonfly here");
    check_diagnostic(diags[1], file, 19, 23, "fabric.dragonfly.nodes_per_router",
                     "groups*chassis*routers*nodes_per_router = 2*2*2*3 = 24 must equal fabric.nodes 16");
  }
}

TEST_CASE("config::Loader: the collective algorithm needs what the platform offers", "[config]") {
  SECTION("in-switch reduction on a PCIe platform") {
    const auto file = fixture("bad/in_switch_on_pcie.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 10, 14, "collectives.algorithm",
                     "in-switch cannot run any of this scenario's collectives on platform \"PCIe test box\": the "
                     "data-parallel group (parallelism.dp 4): it reduces in the node's switch, and the node has no "
                     "switch that reduces (node.in_switch_reduction: false)");
  }
  SECTION("hierarchical collectives on one node") {
    const auto file = fixture("bad/hierarchical_one_node.yaml");
    const auto diags = diagnostics_of([&] { load_scenario(file); });
    REQUIRE(diags.size() == 1);
    check_diagnostic(diags[0], file, 10, 14, "collectives.algorithm",
                     "hierarchical cannot run any of this scenario's collectives on platform \"Test box\": the "
                     "data-parallel group (parallelism.dp 4): it works inside each node, then across the nodes, and "
                     "the group is on one node");
  }
  SECTION("algorithm and fidelity are built into the scenario") {
    const auto s = load_scenario(fixture("good/scenario.yaml"), {parse_override("collectives.algorithm=tree"),
                                                                 parse_override("collectives.fidelity=fluid")});
    CHECK(s.collectives.algorithm == clearfog::collectives::collective_algorithm("tree"));
    CHECK(s.collectives.fidelity == Fidelity::Fluid);
    const auto defaults = load_scenario(fixture("good/scenario.yaml"));
    CHECK(defaults.collectives.algorithm == clearfog::config::CollectiveAlgorithm::nccl());
    CHECK(defaults.collectives.fidelity == Fidelity::Step);
  }
}

TEST_CASE("config::Loader: a platform's name cites its counts by key, resolved after --set", "[config]") {
  SECTION("{key} is the integer key's value") {
    const auto file = fixture("good/platform.yaml");
    const auto named = [&](const std::string& name, const std::vector<std::string>& sets) {
      std::vector<Override> overrides = {parse_override("name=" + name)};
      for (const auto& set : sets) overrides.push_back(parse_override(set));
      return load_platform(file, overrides).name;
    };
    // The file has 4 devices in one node (fabric.nodes defaults to 1).
    CHECK(named("Test box ({node.devices}x chips)", {}) == "Test box (4x chips)");
    CHECK(named("Test box ({node.devices}x chips)", {"node.devices=2"}) == "Test box (2x chips)");
    CHECK(named("Test box of {fabric.nodes} node", {}) == "Test box of 1 node");
    CHECK(named("Test box", {"node.devices=2"}) == "Test box");
  }
  SECTION("a reference to no integer key, or an unclosed one, is an error at the name") {
    const auto file = fixture("bad/name_references.yaml");
    const auto diags = diagnostics_of([&] { load_platform(file); });
    REQUIRE(diags.size() == 3);
    check_diagnostic(diags[0], file, 3, 7, "name", "{node.device} names no integer key of this file");
    check_diagnostic(diags[1], file, 3, 7, "name", "{node.link.bandwidth} names no integer key of this file");
    check_diagnostic(diags[2], file, 3, 7, "name", "a { without its }");
  }
}
