// The configuration reference is rendered from the key tables: every declared key appears in
// `clearfog explain`, and docs/configuration.md is the current rendering.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "config/ConfigReference.hpp"
#include "config/KeyTable.hpp"

using namespace clearfog::config;
using Catch::Matchers::Contains;

TEST_CASE("config::ConfigReference: explain lists every key of every kind", "[config]") {
  for (DocumentKind kind : kAllDocumentKinds) {
    const std::string text = render_key_table(kind, false);
    const std::string markdown = render_key_table(kind, true);
    for (const auto& key : KeyTable::of(kind).keys()) {
      INFO(kind_name(kind) << " " << key.path);
      CHECK_THAT(text, Contains(key.path));
      CHECK_THAT(markdown, Contains("| `" + key.path + "` |"));
      CHECK_THAT(markdown, Contains(key.description));
      for (const auto& field : key.fields) {
        CHECK_THAT(markdown, Contains("| `" + key.path + "[]." + field.path + "` |"));
        CHECK_THAT(markdown, Contains(field.description));
      }
    }
  }
}

TEST_CASE("config::ConfigReference: tables show types, defaults and allowed values", "[config]") {
  const std::string scenario = render_key_table(DocumentKind::Scenario, true);
  CHECK_THAT(scenario, Contains("| `training.bucket_size` | data size | `25 MB` | > 0, 1 B to 1 PB, e.g. 80 GB |"));
  CHECK_THAT(scenario, Contains("| `training.optimizer` | enum | `adam` | adam, sgd |"));
  CHECK_THAT(scenario, Contains("| `training.global_batch` | integer | required | >= 1 sequences |"));
  CHECK_THAT(scenario, Contains("| `training.micro_batch` | integer | `1` | >= 1 sequences, at most 65536 |"));
  const std::string workload = render_key_table(DocumentKind::Workload, true);
  CHECK_THAT(workload, Contains("| `ffn_hidden` | integer | `4*hidden` |"));
  const std::string platform = render_key_table(DocumentKind::Platform, false);
  CHECK_THAT(platform, Contains("fabric.topology"));
  CHECK_THAT(platform, Contains("fat-tree, torus, dragonfly"));
}

TEST_CASE("config::ConfigReference: lists, records and conditions are rendered", "[config]") {
  const std::string platform = render_key_table(DocumentKind::Platform, true);
  // Tables with conditional keys get a "used when" column; the others do not.
  CHECK_THAT(platform, Contains("| key | type | default | allowed | used when | description |"));
  CHECK_THAT(render_key_table(DocumentKind::Accelerator, true), !Contains("used when"));
  CHECK_THAT(platform, Contains("| `node.torus.dims` | list of integers | required | each >= 1, at most 4096 | "
                                "node.topology is torus |"));
  CHECK_THAT(platform, Contains("| `node.custom.switches` | list of strings | `[]` | names | node.topology is custom |"));
  CHECK_THAT(platform, Contains("| `node.custom.edges` | list of records | required | mappings (fields below) |"));
  CHECK_THAT(platform, Contains("| `node.custom.edges[].bandwidth` | bandwidth | required | > 0, 1 kB/s to 1000 PB/s, e.g. 300 GB/s |  |"));
  CHECK_THAT(platform, Contains("| `node.link.bandwidth` | bandwidth | required | > 0, 1 kB/s to 1000 PB/s, e.g. 300 GB/s | "
                                "node.topology is not custom |"));
  CHECK_THAT(platform, Contains("| `fabric.torus.dims` | list of integers | required | each >= 1, at most 16384 | "
                                "fabric.nodes > 1 and fabric.topology is torus |"));
  CHECK_THAT(platform, Contains("| `collectives.efficiency` | number | `1` | between 0.001 and 1 |  |"));
  const std::string text = render_key_table(DocumentKind::Platform, false);
  CHECK_THAT(text, Contains("USED WHEN"));
  CHECK_THAT(text, Contains("node.custom.edges[].latency"));
}

TEST_CASE("config::ConfigReference: docs/configuration.md is up to date", "[config]") {
  std::ifstream in(std::string(CLEARFOG_SOURCE_DIR) + "/docs/configuration.md", std::ios::binary);
  REQUIRE(in);
  std::ostringstream page;
  page << in.rdbuf();
  const std::string expected = configuration_reference_markdown();
  const std::string actual = page.str();
  if (actual != expected) {
    // Name the first line that differs instead of printing both pages.
    std::istringstream a(actual), e(expected);
    std::string line_a, line_e;
    int line = 0;
    while (true) {
      ++line;
      const bool more_a = static_cast<bool>(std::getline(a, line_a));
      const bool more_e = static_cast<bool>(std::getline(e, line_e));
      if (line_a != line_e || more_a != more_e || (!more_a && !more_e)) break;
    }
    FAIL("docs/configuration.md is stale (first difference at line "
         << line << ": \"" << line_a << "\", expected \"" << line_e
         << "\"); regenerate it with `build/sim/clearfog explain --markdown > docs/configuration.md`");
  }
  SUCCEED("docs/configuration.md matches the key tables");
}
