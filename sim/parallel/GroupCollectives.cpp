#include "parallel/GroupCollectives.hpp"

#include "collectives/CollectiveAlgorithmType.hpp"

namespace clearfog::parallel {

GroupCollectives plain_group_collectives(int devices, config::Fidelity fidelity) {
  GroupCollectives c;
  c.endpoints = devices;
  c.request = [fidelity](config::CollectiveOp op, const std::vector<int>& members, double bytes) {
    collectives::CollectiveRequest q;
    q.op = op;
    static const auto direct = collectives::collective_algorithm("direct");
    static const auto ring = collectives::collective_algorithm("ring");
    q.algorithm = op == config::CollectiveOp::SendRecv || op == config::CollectiveOp::AllToAll ? direct : ring;
    q.fidelity = fidelity;
    q.ranks = members;
    q.bytes = bytes;
    return q;
  };
  return c;
}

}  // namespace clearfog::parallel
