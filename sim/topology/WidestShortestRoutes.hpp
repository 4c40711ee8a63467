#pragma once
// Widest-then-shortest routes from one vertex of a node graph (the search behind
// TopologyGraph::route()). Kept pure and separate so that the rule can be read in one place.
#include <vector>

#include "topology/TopologyGraph.hpp"

namespace clearfog::topology {

/// Routes from `source` to every device vertex of `graph`. See TopologyGraph::route() for the rule.
RoutesFrom widest_shortest_routes(const Graph& graph, const std::vector<Link>& links,
                                  const std::vector<Vertex>& devices, Vertex source);

}  // namespace clearfog::topology
