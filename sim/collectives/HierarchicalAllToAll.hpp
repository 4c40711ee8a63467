#pragma once
// All-to-all-v across nodes of m consecutive members, routed as DeepEP's internode kernels and
// NCCL's PXN route it: what member i sends the members of another node g crosses the network
// once, to g's member with i's local index (its rail peer), which forwards each member of g its
// part over the node's links; inside its own node, i sends directly. The network carries
// `network_share` x sum_j in g matrix[i][j] from i to g: 1 when every byte is meant for one
// member (NCCL), less when a token several members of g want travels once (DeepEP's
// de-duplication, collectives.md "Hierarchical all-to-all"). Round 0: direct sends inside the
// node and the network sends; round 1: the forwards. The fluid plan merges a pair's rounds, so
// the forwards overlap the network sends, as DeepEP's chunked kernels do. Messages on the node's
// links carry `node_scale` wire bytes per wire byte of the matrix: the request's bytes include the
// network's protocol overhead, the node's links have their own (CollectiveRequest::node_scale).
// Throws clearfog::Error unless m >= 1 divides the members, 0 < network_share <= 1 and node_scale > 0.
#include <vector>

#include "collectives/Schedule.hpp"

namespace clearfog::collectives {

Schedule hierarchical_all_to_all_v_schedule(const std::vector<std::vector<double>>& matrix, int per_node,
                                            double network_share = 1, double node_scale = 1);
/// The even all-to-all (`bytes` is each member's send buffer, bytes / p to each member).
Schedule hierarchical_all_to_all_schedule(int p, int per_node, double bytes, double network_share = 1,
                                          double node_scale = 1);

}  // namespace clearfog::collectives
