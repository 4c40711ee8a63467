#include "parallel/GroupCollectives.hpp"

namespace clearfog::parallel {

GroupCollectives plain_group_collectives(int devices, config::Fidelity fidelity) {
  GroupCollectives c;
  c.endpoints = devices;
  c.request = [fidelity](config::CollectiveOp op, const std::vector<int>& members, double bytes) {
    collectives::CollectiveRequest q;
    q.op = op;
    q.algorithm = op == config::CollectiveOp::SendRecv || op == config::CollectiveOp::AllToAll
                      ? config::CollectiveAlgorithm::Direct
                      : config::CollectiveAlgorithm::Ring;
    q.fidelity = fidelity;
    q.ranks = members;
    q.bytes = bytes;
    return q;
  };
  return c;
}

}  // namespace clearfog::parallel
