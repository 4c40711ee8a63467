#pragma once
#include <string>
#include <vector>

#include "config/PlatformSpec.hpp"
#include "topology/NodeTopologyType.hpp"

namespace clearfog::topology::nodes {

/// An edge of a custom node: endpoints are devices ("dev0" … "dev<n-1>") or switch names.
struct CustomEdge {
  std::string from;
  std::string to;
  config::LinkSpec link;
};

/// custom's parameters (node.custom.*).
struct CustomParams final : config::NodeParams {
  std::vector<std::string> switches;  // names of non-device vertices
  std::vector<CustomEdge> edges;
};

/// custom: an explicit edge list.
const NodeTopologyType& custom_node();

}  // namespace clearfog::topology::nodes
