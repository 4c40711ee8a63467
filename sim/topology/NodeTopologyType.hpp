#pragma once
// A node topology kind (switch, torus, …): its configuration schema (keys, rules, parameters) and
// what the topology layer does with it — the builder of its vertices and links, and where its shape
// is known in closed form, its bisection, ring order and sketch. Each kind is one file under
// topology/nodes/ and one line in topology/nodes/NodeTopologies.cpp; docs/extending.md walks
// through adding one.
#include <optional>
#include <string>
#include <vector>

#include "config/NodeTopologySchema.hpp"
#include "config/PlatformSpec.hpp"
#include "topology/NodeLayout.hpp"

namespace clearfog::topology {

class TopologyGraph;

/// One direction's least bandwidth between two halves of a node, and how it was found.
struct Bisection {
  double bandwidth_Bps = 0;  // one direction: each cut link counts once, with its per-direction bandwidth
  std::string method;        // how it was obtained, for reports
};

class NodeTopologyType : public config::NodeTopologySchema {
public:
  /// The node's vertices and links (devices are vertices 0 … devices-1, named dev<i>). Throws
  /// clearfog::Error naming a bad parameter: the checks catch these first for files, the builders
  /// stay safe for platforms built in code.
  [[nodiscard]] virtual NodeLayout build(const config::NodeSpec& node) const = 0;
  /// Checks of the built graph the builder cannot make by construction (a custom node's reach).
  virtual void check_built(const TopologyGraph& /*graph*/) const {}
  /// Whether its links are NVLink-class rather than PCIe (NCCL's typeIntra, which its tuner rates).
  [[nodiscard]] virtual bool nvlink_class() const { return true; }
  /// The bisection in closed form, for nodes too large to enumerate; nullopt: none known.
  [[nodiscard]] virtual std::optional<Bisection> bisection(const config::NodeSpec& /*node*/) const {
    return std::nullopt;
  }
  /// A ring through every device where the search for the widest one gives up; nullopt: index order.
  [[nodiscard]] virtual std::optional<std::vector<int>> ring_order(const config::NodeSpec& /*node*/) const {
    return std::nullopt;
  }
  /// A drawing of the node for `clearfog platform info`; nullopt: its neighbours, vertex by vertex.
  [[nodiscard]] virtual std::optional<std::string> sketch(const TopologyGraph& /*graph*/,
                                                          const config::NodeSpec& /*node*/) const {
    return std::nullopt;
  }
};

/// Every registered kind, in docs order.
const std::vector<const NodeTopologyType*>& node_topology_types();
/// The type of `topology`.
const NodeTopologyType& node_topology_type(config::NodeTopology topology);
/// The registered kind named `name`; throws clearfog::Error listing the registered ones.
config::NodeTopology node_topology(std::string_view name);

}  // namespace clearfog::topology
