#include "collectives/Hierarchical.hpp"

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/HierarchicalAllToAll.hpp"

#include <fmt/format.h>

#include <vector>

#include "collectives/Ring.hpp"
#include "core/Errors.hpp"

namespace clearfog::collectives {
namespace {

void check_nodes(int p, int per_node) {
  if (per_node < 1 || p % per_node != 0)
    throw Error(fmt::format("hierarchical collectives need ranks_per_node >= 1 dividing the {} members, got {}", p,
                            per_node));
}

/// `make(members)` run inside every node at once.
template <typename Make>
Schedule in_every_node(int p, int per_node, Make make) {
  Schedule s(p);
  for (int g = 0; g < p / per_node; ++g) {
    std::vector<int> positions(per_node);
    for (int l = 0; l < per_node; ++l) positions[l] = g * per_node + l;
    s.alongside(make(per_node).embedded(positions, p));
  }
  return s;
}

/// `make(nodes)` run across the nodes, once per local index, all at once.
template <typename Make>
Schedule across_nodes(int p, int per_node, Make make) {
  const int nodes = p / per_node;
  Schedule s(p);
  for (int l = 0; l < per_node; ++l) {
    std::vector<int> positions(nodes);
    for (int g = 0; g < nodes; ++g) positions[g] = g * per_node + l;
    s.alongside(make(nodes).embedded(positions, p));
  }
  return s;
}

}  // namespace

Schedule hierarchical_all_reduce_schedule(int p, int per_node, double bytes, double chunk_B) {
  check_nodes(p, per_node);
  Schedule s = in_every_node(p, per_node, [&](int m) { return ring_reduce_scatter_schedule(m, bytes, chunk_B); });
  s.then(across_nodes(p, per_node, [&](int q) { return ring_all_reduce_schedule(q, bytes / per_node, chunk_B); }));
  s.then(in_every_node(p, per_node, [&](int m) { return ring_all_gather_schedule(m, bytes, chunk_B); }));
  return s;
}

Schedule hierarchical_reduce_scatter_schedule(int p, int per_node, double bytes, double chunk_B) {
  check_nodes(p, per_node);
  Schedule s = in_every_node(p, per_node, [&](int m) { return ring_reduce_scatter_schedule(m, bytes, chunk_B); });
  s.then(across_nodes(p, per_node, [&](int q) { return ring_reduce_scatter_schedule(q, bytes / per_node, chunk_B); }));
  return s;
}

Schedule hierarchical_all_gather_schedule(int p, int per_node, double bytes, double chunk_B) {
  check_nodes(p, per_node);
  Schedule s = across_nodes(p, per_node, [&](int q) { return ring_all_gather_schedule(q, bytes / per_node, chunk_B); });
  s.then(in_every_node(p, per_node, [&](int m) { return ring_all_gather_schedule(m, bytes, chunk_B); }));
  return s;
}


namespace {

using config::CollectiveOp;

class HierarchicalAlgorithm final : public CollectiveAlgorithmType {
public:
  std::string_view name() const override { return "hierarchical"; }
  std::string_view summary() const override { return "inside nodes, then across them, then inside (several nodes)"; }
  int version() const override { return 1; }
  bool implements(CollectiveOp op) const override {
    return config::is_reduce_or_gather(op) || op == CollectiveOp::AllToAll;
  }
  std::optional<std::string> refusal(CollectiveOp /*op*/, const GroupShape& g) const override {
    if (g.spans_nodes == false) return "it works inside each node, then across the nodes, and the group is on one node";
    if (g.ranks_per_node == 0)
      return "it needs its members in equal runs of consecutive members on each node (ranks_per_node), and they are "
             "not";
    return std::nullopt;
  }
  Schedule schedule(const CollectiveRequest& r) const override {
    const int p = static_cast<int>(r.ranks.size()), m = r.ranks_per_node;
    switch (r.op) {
      case CollectiveOp::AllReduce: return hierarchical_all_reduce_schedule(p, m, r.bytes, r.chunk_B);
      case CollectiveOp::ReduceScatter: return hierarchical_reduce_scatter_schedule(p, m, r.bytes, r.chunk_B);
      case CollectiveOp::AllGather: return hierarchical_all_gather_schedule(p, m, r.bytes, r.chunk_B);
      default:
        return r.matrix.empty()
                   ? hierarchical_all_to_all_schedule(p, m, r.bytes, r.network_share, r.node_scale)
                   : hierarchical_all_to_all_v_schedule(wire_matrix(r), m, r.network_share, r.node_scale);
    }
  }
};

}  // namespace

const CollectiveAlgorithmType& hierarchical_algorithm() {
  static const HierarchicalAlgorithm algorithm;
  return algorithm;
}

}  // namespace clearfog::collectives
