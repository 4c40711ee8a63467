// The key tables: sections derived from dotted paths, and defaults that read as valid values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "config/KeyTable.hpp"
#include "config/NodeTopologySchema.hpp"

using namespace clearfog::config;

TEST_CASE("config::KeyTable: sections are the prefixes of declared keys", "[config]") {
  const KeyTable& platform = KeyTable::of(DocumentKind::Platform);
  CHECK(platform.is_section(""));
  CHECK(platform.is_section("node"));
  CHECK(platform.is_section("node.link"));
  CHECK_FALSE(platform.is_section("node.devices"));
  CHECK_FALSE(platform.is_section("node.li"));
  CHECK(platform.find("node.link.bandwidth") != nullptr);
  CHECK(platform.find("node.link") == nullptr);
  // The node's own keys, then each registered kind's section (node.pcie, node.torus, …) in order.
  std::vector<std::string> node_children{"devices", "topology", "link", "in_switch_reduction"};
  for (const auto* kind : node_topology_schemas())
    for (const KeySpec& key : kind->keys()) {
      const std::string section = key.path.substr(5, key.path.find('.', 5) - 5);  // node.<section>.…
      if (std::find(node_children.begin(), node_children.end(), section) == node_children.end())
        node_children.push_back(section);
    }
  CHECK(node_children.size() > 4);
  CHECK(platform.children("node") == node_children);
  CHECK(platform.children("fabric.nic") == std::vector<std::string>{"count", "bandwidth", "latency"});
  CHECK(platform.children("node.link") == std::vector<std::string>{"bandwidth", "latency"});
}

TEST_CASE("config::KeyTable: every table is well formed", "[config]") {
  for (DocumentKind kind : kAllDocumentKinds) {
    const KeyTable& table = KeyTable::of(kind);
    CHECK(table.kind() == kind);
    REQUIRE_FALSE(table.keys().empty());
    CHECK(table.keys().front().path == "kind");
    std::set<std::string> paths;
    for (const auto& key : table.keys()) {
      INFO(kind_name(kind) << " " << key.path);
      CHECK(paths.insert(key.path).second);  // declared once
      CHECK_FALSE(key.description.empty());
      if (key.type == KeyType::Enum) CHECK_FALSE(key.choices.empty());
      if (key.presence == Presence::Derived) CHECK_FALSE(key.default_text.empty());
      if (key.type == KeyType::Record) CHECK(key.list);
      for (const auto& c : key.only_with) CHECK(table.find(c.key) != nullptr);
    }
  }
}
