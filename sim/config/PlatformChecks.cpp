#include "config/NodeTopologySchema.hpp"
#include "config/PlatformChecks.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <map>
#include <set>
#include <utility>
#include <string>

#include <fmt/format.h>

#include "config/AcceleratorCalibration.hpp"
#include "config/CheckSupport.hpp"
#include "config/KeyReferences.hpp"
#include "config/KeyTable.hpp"
#include "config/PlatformSpec.hpp"
#include "core/CheckedMath.hpp"
#include "core/DType.hpp"
#include "core/Quote.hpp"

namespace clearfog::config {

namespace {

// ---- Helpers ----------------------------------------------------------------------------------

/// The product of a list's elements, or nullopt when it leaves int64.
std::optional<std::int64_t> product(const ConfigValue& list) {
  std::vector<std::int64_t> factors;
  for (const ConfigValue& e : list.as_list()) factors.push_back(e.as_integer());
  return checked_product(factors);
}

/// "4*4*2".
std::string product_text(const ConfigValue& list) {
  std::vector<std::int64_t> factors;
  for (const ConfigValue& e : list.as_list()) factors.push_back(e.as_integer());
  return fmt::format("{}", fmt::join(factors, "*"));
}

// ---- Platform: the node -------------------------------------------------------------------------


void check_node(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  const ConfigValue* devices_value = doc.find("node.devices");
  const ConfigValue* topology_value = doc.find("node.topology");
  if (!devices_value || !topology_value) return;
  parse_node_topology(topology_value->as_string())->schema().check(doc, devices_value->as_integer(), out);
}

// ---- Platform: the fabric -----------------------------------------------------------------------

void check_fat_tree(const ConfigDocument& doc, std::int64_t nodes, std::vector<Diagnostic>& out) {
  const ConfigValue* down = used(doc, "fabric.fat_tree.down");
  if (down) check_product(*down, "down counts", nodes, "fabric.nodes", out);
  // Without down, the shape is derived from the node count (derived_fat_tree).
  const ConfigValue* leaf_nodes = used(doc, "fabric.fat_tree.leaf_nodes");
  const std::size_t levels =
      down ? down->as_list().size()
           : derived_fat_tree(static_cast<int>(nodes), leaf_nodes ? static_cast<int>(leaf_nodes->as_integer()) : 16)
                 .down.size();
  for (const char* path : {"fabric.fat_tree.up", "fabric.fat_tree.parallel"}) {
    const ConfigValue* v = used(doc, path);
    if (v && v->as_list().size() != levels)
      report_at(*v,
                fmt::format("has {} {}; give one per level of fabric.fat_tree.down, which has {}{}",
                            v->as_list().size(), v->as_list().size() == 1 ? "entry" : "entries", levels,
                            down ? "" : " (derived from fabric.nodes, as down is not given)"),
                out);
  }
}

void check_fabric(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  const ConfigValue* nodes_value = doc.find("fabric.nodes");
  const ConfigValue* topology_value = used(doc, "fabric.topology");
  if (!nodes_value || !topology_value) return;  // one node: nothing to check beyond the conditions
  const std::int64_t nodes = nodes_value->as_integer();

  const ConfigValue* devices = doc.find("node.devices");
  if (const ConfigValue* nics = used(doc, "fabric.nic.count"); nics && devices) {
    if (devices->as_integer() % nics->as_integer() != 0)
      report_at(*nics,
                fmt::format("{} devices cannot be spread over {} NICs; allowed: a divisor of {} ({})",
                            devices->as_integer(), nics->as_integer(), devices->as_integer(),
                            divisors_text(devices->as_integer())),
                out);
  }

  switch (*parse_fabric_topology(topology_value->as_string())) {
    case FabricTopology::FatTree: check_fat_tree(doc, nodes, out); break;
    case FabricTopology::Torus:
      if (const ConfigValue* dims = used(doc, "fabric.torus.dims")) check_product(*dims, "dimensions", nodes, "fabric.nodes", out);
      break;
    case FabricTopology::Dragonfly: {
      std::vector<std::int64_t> factors;
      for (const char* path : {"fabric.dragonfly.groups", "fabric.dragonfly.chassis", "fabric.dragonfly.routers",
                               "fabric.dragonfly.nodes_per_router"}) {
        const ConfigValue* v = used(doc, path);
        if (!v) return;  // reported as missing
        factors.push_back(v->as_integer());
      }
      const auto total = checked_product(factors);
      if (total != nodes)
        report(doc, "fabric.dragonfly.nodes_per_router",
               fmt::format("groups*chassis*routers*nodes_per_router = {} = {} must equal fabric.nodes {}",
                           fmt::join(factors, "*"), total ? std::to_string(*total) : "more than 2^63", nodes),
               out);
      break;
    }
  }
}

/// fabric.degraded_nics: each NIC on the platform, listed once, slowed by 1 ... 1000.
void check_degraded_nics(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  constexpr double kMaxNicSlowdown = 1000;
  const ConfigValue* degraded = used(doc, "fabric.degraded_nics");
  const ConfigValue* nodes = doc.find("fabric.nodes");
  const ConfigValue* nics = used(doc, "fabric.nic.count");
  if (!degraded || !nodes || !nics) return;
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (const ConfigValue& d : degraded->as_list()) {
    const ConfigValue* node = d.field("node");
    const ConfigValue* nic = d.field("nic");
    const ConfigValue* slowdown = d.field("slowdown");
    if (node && node->as_integer() >= nodes->as_integer())
      report_at(*node, fmt::format("node {} is not on the platform: it has nodes 0 ... {}", node->as_integer(),
                                   nodes->as_integer() - 1),
                out);
    if (nic && nic->as_integer() >= nics->as_integer())
      report_at(*nic, fmt::format("NIC {} is not on a node: fabric.nic.count is {}, NICs 0 ... {}", nic->as_integer(),
                                  nics->as_integer(), nics->as_integer() - 1),
                out);
    if (node && nic && !seen.insert({node->as_integer(), nic->as_integer()}).second)
      report_at(*nic, fmt::format("NIC {} of node {} is listed twice; give each NIC one slowdown", nic->as_integer(),
                                  node->as_integer()),
                out);
    if (slowdown && (slowdown->numeric() < 1 || slowdown->numeric() > kMaxNicSlowdown))
      report_at(*slowdown, fmt::format("must be 1 ... {} (a degraded NIC is slower, not faster), got {}",
                                       kMaxNicSlowdown, slowdown->numeric()),
                out);
  }
}

/// mixed: the accelerator and its nodes come together, each node on the platform and listed once.
void check_mixed(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  const ConfigValue* listed = doc.find("mixed.nodes");
  const bool accelerator = doc.child("mixed.accelerator") != nullptr;
  if (!listed && !accelerator) return;
  if (!listed) {
    report(doc, "mixed.accelerator", "give mixed.nodes too: the nodes whose devices are this accelerator", out);
    return;
  }
  if (!accelerator) {
    report_at(*listed, "give mixed.accelerator too: the accelerator of these nodes' devices", out);
    return;
  }
  if (listed->as_list().empty()) report_at(*listed, "must list at least one node", out);
  const ConfigValue* nodes = doc.find("fabric.nodes");
  std::set<std::int64_t> seen;
  for (const ConfigValue& n : listed->as_list()) {
    if (nodes && n.as_integer() >= nodes->as_integer())
      report_at(n, fmt::format("node {} is not on the platform: it has nodes 0 ... {}", n.as_integer(),
                               nodes->as_integer() - 1),
                out);
    if (!seen.insert(n.as_integer()).second)
      report_at(n, fmt::format("node {} is listed twice", n.as_integer()), out);
  }
}

/// A collective cannot occupy every compute unit, nor all of the memory bandwidth.
void check_interference(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  const ConfigValue* units = doc.find("collectives.interference.units");
  const ConfigDocument* accelerator = doc.child("accelerator");
  const ConfigValue* compute_units = accelerator ? accelerator->find("compute_units") : nullptr;
  if (units && !units->is_derived() && compute_units && !compute_units->is_derived() &&
      units->as_integer() >= compute_units->as_integer())
    report_at(*units,
              fmt::format("must be below the accelerator's compute_units ({}), got {}", compute_units->as_integer(),
                          units->as_integer()),
              out);
  const ConfigValue* share = doc.find("collectives.interference.memory_share");
  if (share && !share->is_derived() && !(share->numeric() < 1))
    report_at(*share, fmt::format("must be >= 0 and < 1 (a share of the memory bandwidth), got {}", share->numeric()),
              out);
}

}  // namespace

/// Every element of gemm.tiles is a tile "MxN"; at least one is given.
void check_gemm_tiles(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  const ConfigValue* tiles = doc.find("gemm.tiles");
  if (!tiles) return;
  for (const ConfigValue& element : tiles->as_list())
    if (!parse_tile_shape(element.as_string()))
      report_at(element,
                fmt::format("expected a tile \"MxN\" of two integers in 1..{} such as \"128x64\", got {}", kMaxTileSide,
                            quote(element.as_string())),
                out);
  if (tiles->as_list().empty()) report_at(*tiles, "must list at least one tile such as \"128x128\"", out);
}

/// A `calibrated.<key>` names the measurement behind a value the file gives, not behind a default.
void check_calibrated(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  for (const std::string& key : calibratable_accelerator_keys()) {
    const ConfigValue* source = doc.find("calibrated." + key);
    const ConfigValue* value = doc.find(key);
    if (source && (!value || value->is_default() || value->is_derived()))
      report_at(*source,
                fmt::format("names the measurement behind {}, but the file gives no {}: give the value fitted to it",
                            key, key),
                out);
  }
}

/// A dtype's GEMM efficiency needs the dtype's peak: without it no GEMM runs in that dtype.
void check_dtype_efficiencies(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  for (DType d : kAllDTypes) {
    const std::string name(dtype_name(d));
    if (const ConfigValue* e = doc.find("gemm.dtype_efficiency." + name); e && !doc.find("peak." + name))
      report_at(*e, fmt::format("the accelerator gives no peak.{}: no GEMM runs in {}; give the peak or drop this key",
                                name, name),
                out);
  }
}

void check_accelerator(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  check_gemm_tiles(doc, out);
  check_calibrated(doc, out);
  check_dtype_efficiencies(doc, out);
  if (!doc.complete() || !supported_dtypes(doc).empty()) return;
  std::vector<std::string> keys;
  for (DType d : kAllDTypes) keys.push_back("peak." + std::string(dtype_name(d)));
  report(doc, "peak", fmt::format("no peak given; give at least one of: {}", fmt::join(keys, ", ")), out);
}

void check_platform(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  check_conditions(doc, out);
  check_key_references(doc, "name", out);
  check_node(doc, out);
  check_fabric(doc, out);
  check_degraded_nics(doc, out);
  check_mixed(doc, out);
  check_interference(doc, out);
}

std::string divisors_text(std::int64_t n) {
  std::vector<std::int64_t> divisors;
  for (std::int64_t d = 1; d <= n; ++d)
    if (n % d == 0) divisors.push_back(d);
  return fmt::format("{}", fmt::join(divisors, ", "));
}


void check_product(const ConfigValue& factors, std::string_view what, std::int64_t expected,
                   std::string_view expected_key, std::vector<Diagnostic>& out) {
  if (factors.as_list().empty()) {
    report_at(factors, fmt::format("give at least one entry; the product of the {} must be {} {}", what,
                                   expected_key, expected),
              out);
    return;
  }
  const auto p = product(factors);
  if (p != expected)
    report_at(factors,
              fmt::format("the product of the {} {} = {} must equal {} {}", what, product_text(factors),
                          p ? std::to_string(*p) : "more than 2^63", expected_key, expected),
              out);
}

}  // namespace clearfog::config
