#pragma once
// A machine: accelerators, how they are joined inside a node and (later) between nodes. SI units.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "config/AcceleratorSpec.hpp"

namespace clearfog::config {

enum class NodeTopology {
  Switch,  // NVSwitch-like: every device has one full-bandwidth port to a non-blocking switch
};

/// Every topology, in the order `node.topology` lists them; a new kind is added here and in
/// node_topology_name(), and the key table, the reader and the docs pick it up.
inline constexpr std::array<NodeTopology, 1> kAllNodeTopologies = {NodeTopology::Switch};

/// The spelling used in `node.topology:`.
constexpr std::string_view node_topology_name(NodeTopology t) {
  switch (t) {
    case NodeTopology::Switch: return "switch";
  }
  return "?";
}

constexpr std::optional<NodeTopology> parse_node_topology(std::string_view name) {
  for (NodeTopology t : kAllNodeTopologies)
    if (node_topology_name(t) == name) return t;
  return std::nullopt;
}

struct PlatformSpec {
  std::string name;
  std::string source;
  AcceleratorSpec accelerator;
  int nodes = 1;                       // multi-node fabrics are rejected until the fabric issue lands
  int devices_per_node = 0;
  NodeTopology topology = NodeTopology::Switch;
  double link_bandwidth_Bps = 0;       // per device, per direction
  double link_latency_s = 0;           // per link (device->switch); a device-to-device route has two

  [[nodiscard]] int device_count() const { return nodes * devices_per_node; }
};

}  // namespace clearfog::config
