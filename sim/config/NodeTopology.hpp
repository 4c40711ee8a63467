#pragma once
// node.topology: which registered kind joins the devices of a node (switch, torus, …) and the
// kind's own parameters. The kinds are listed once, in topology/nodes/NodeTopologies.cpp; each is
// one file under topology/nodes/ (docs/extending.md, "A node topology").
#include <compare>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace clearfog::config {

class NodeTopologySchema;

/// A kind's own parameters (a PCIe tree's switches, a torus's extents): each kind that has any
/// defines a subclass in its file; NodeSpec::params holds it.
struct NodeParams {
  NodeParams() = default;
  NodeParams(const NodeParams&) = default;
  NodeParams& operator=(const NodeParams&) = default;
  virtual ~NodeParams() = default;
};

/// One registered node topology: a small value, ordered as the registry lists the kinds.
class NodeTopology {
public:
  constexpr NodeTopology() = default;  // the first kind listed: switch
  static constexpr NodeTopology registered(int index) { return NodeTopology(index); }
  [[nodiscard]] constexpr int index() const { return id_; }
  /// What the configuration layer knows of the kind (defined by topology/nodes/NodeTopologies.cpp).
  [[nodiscard]] const NodeTopologySchema& schema() const;
  /// The `node.topology:` spelling.
  [[nodiscard]] std::string_view name() const;
  constexpr auto operator<=>(const NodeTopology&) const = default;

private:
  constexpr explicit NodeTopology(int id) : id_(id) {}
  int id_ = 0;
};

inline std::string_view node_topology_name(NodeTopology t) { return t.name(); }
/// The registered kind spelt `name`, or nullopt.
std::optional<NodeTopology> parse_node_topology(std::string_view name);
/// Every registered kind, in docs order.
std::vector<NodeTopology> node_topologies();

}  // namespace clearfog::config
