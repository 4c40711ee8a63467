#include "collectives/Hierarchical.hpp"

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

}  // namespace clearfog::collectives
