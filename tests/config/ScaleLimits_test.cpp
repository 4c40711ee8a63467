// The limits of what the simulator can hold: each names a declared key, the reader refuses a value
// above it with the memory it would need, and totals over several keys are checked.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "config/KeyTable.hpp"
#include "config/ScaleLimits.hpp"

using namespace clearfog::config;
using Catch::Matchers::Contains;

TEST_CASE("config::ScaleLimits: every limit names a declared integer key", "[config]") {
  // A key renamed in a key table without its limit would silently lose the limit.
  for (const KeyLimit& limit : key_limits()) {
    INFO(kind_name(limit.kind) << " " << limit.path);
    // "overrides[].first": the field of a list of records.
    const std::string path(limit.path);
    const auto brackets = path.find("[].");
    const KeySpec* spec = KeyTable::of(limit.kind).find(path.substr(0, brackets));
    if (spec && brackets != std::string::npos) {
      const std::string field = path.substr(brackets + 3);
      const auto it = std::find_if(spec->fields.begin(), spec->fields.end(),
                                   [&](const KeySpec& f) { return f.path == field; });
      spec = it == spec->fields.end() ? nullptr : &*it;
    }
    REQUIRE(spec != nullptr);
    CHECK(spec->type == KeyType::Integer);
    CHECK(limit.max >= 1);
    CHECK(limit.max <= 2147483647);
  }
  const QuantityFloor* chunk = find_quantity_floor(DocumentKind::Platform, "collectives.chunk");
  REQUIRE(chunk != nullptr);
  CHECK(KeyTable::of(DocumentKind::Platform).find("collectives.chunk")->type == KeyType::Quantity);
}

TEST_CASE("config::ScaleLimits: the message gives the memory a value would need", "[config]") {
  const KeyLimit* devices = find_key_limit(DocumentKind::Platform, "node.devices");
  REQUIRE(devices != nullptr);
  // Routes grow with the pairs of devices: 73 B x 2147483647^2 = 3.37e20 B = 3.37e5 PB.
  CHECK_THAT(over_limit_text(2147483647, devices->max, devices->unit, devices->cost),
             Contains("at most 4096 devices per node; this machine would need ~3.37e+05 PB for 2147483647"));
  const KeyLimit* layers = find_key_limit(DocumentKind::Workload, "layers");
  REQUIRE(layers != nullptr);
  // 1.2 kB per layer: 2147483647 layers = 2.58e12 B.
  CHECK_THAT(over_limit_text(2147483647, layers->max, layers->unit, layers->cost),
             Contains("this machine would need ~2.58 TB for 2147483647"));
}
