#pragma once
// What the configuration layer needs from a node topology kind: its keys, its rules, how to read
// its parameters, and the facts other keys depend on. Each kind implements this in its file under
// topology/nodes/ (with its builder, topology/NodeTopologyType.hpp) and is listed once in
// topology/nodes/NodeTopologies.cpp, which defines the registry: the configuration layer declares
// the interface it needs, the topology layer provides it.
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "config/ConfigDocument.hpp"
#include "config/KeySpec.hpp"
#include "config/NodeTopology.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

class NodeTopologySchema {
public:
  NodeTopologySchema() = default;
  NodeTopologySchema(const NodeTopologySchema&) = delete;
  NodeTopologySchema& operator=(const NodeTopologySchema&) = delete;
  virtual ~NodeTopologySchema() = default;

  /// The `node.topology:` value: "switch", "torus".
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// One clause for the key's reference: "a 2D/3D torus with wrap-around links (TPU ICI)".
  [[nodiscard]] virtual std::string_view summary() const = 0;
  /// The kind's own keys (paths from the platform's root, under node.<kind>.): the platform table
  /// adds the condition "node.topology is <name>" to each.
  [[nodiscard]] virtual std::vector<KeySpec> keys() const { return {}; }
  /// Rules between its keys and node.devices (`devices`), reported into `out`.
  virtual void check(const ConfigDocument& /*platform*/, std::int64_t /*devices*/,
                     std::vector<Diagnostic>& /*out*/) const {}
  /// Its parameters from a document that passed the reader and the checks; null: it has none.
  [[nodiscard]] virtual std::shared_ptr<const NodeParams> read(const ConfigDocument& /*platform*/) const {
    return nullptr;
  }
  /// Whether node.link sets its links (a custom node's edges carry their own).
  [[nodiscard]] virtual bool uses_node_link() const { return true; }
  /// Whether its devices meet in one switch, which node.in_switch_reduction may make reduce.
  [[nodiscard]] virtual bool has_switch() const { return false; }
  /// Links of a node of `devices`: what building it costs (a full mesh grows with the square).
  [[nodiscard]] virtual std::int64_t link_count(std::int64_t devices) const { return devices; }
};

/// Every kind, in docs order (defined by topology/nodes/NodeTopologies.cpp).
const std::vector<const NodeTopologySchema*>& node_topology_schemas();

}  // namespace clearfog::config
