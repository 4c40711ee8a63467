#include "collectives/HierarchicalAllToAll.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/Errors.hpp"

namespace clearfog::collectives {

Schedule hierarchical_all_to_all_v_schedule(const std::vector<std::vector<double>>& matrix, int per_node,
                                            double network_share, double node_scale) {
  const int p = static_cast<int>(matrix.size());
  const int m = per_node;
  if (m < 1 || p % m != 0)
    throw Error(fmt::format("hierarchical all-to-all needs members in nodes of equal size, got {} members, {} per "
                            "node",
                            p, m));
  if (!(network_share > 0 && network_share <= 1) || !(node_scale > 0) || !std::isfinite(node_scale))
    throw Error(fmt::format("hierarchical all-to-all: network_share must be in (0, 1] and node_scale > 0, got {} and {}",
                            network_share, node_scale));
  Schedule s(p);
  const int nodes = p / m;
  for (int i = 0; i < p; ++i) {
    const int home = i / m, local = i % m;
    for (int g = 0; g < nodes; ++g) {
      if (g == home) {
        for (int j = g * m; j < (g + 1) * m; ++j)
          if (j != i && matrix[i][j] > 0) s.send(i, j, node_scale * matrix[i][j], 0);
        continue;
      }
      const int peer = g * m + local;
      double to_node = 0;
      for (int j = g * m; j < (g + 1) * m; ++j) to_node += matrix[i][j];
      if (to_node <= 0) continue;
      s.send(i, peer, network_share * to_node, 0);
      for (int j = g * m; j < (g + 1) * m; ++j)
        if (j != peer && matrix[i][j] > 0) s.send(peer, j, node_scale * matrix[i][j], 1);
    }
  }
  return s;
}

Schedule hierarchical_all_to_all_schedule(int p, int per_node, double bytes, double network_share,
                                          double node_scale) {
  std::vector<std::vector<double>> matrix(static_cast<std::size_t>(std::max(p, 0)),
                                          std::vector<double>(static_cast<std::size_t>(std::max(p, 0)), bytes / p));
  for (int i = 0; i < p; ++i) matrix[i][i] = 0;
  return hierarchical_all_to_all_v_schedule(matrix, per_node, network_share, node_scale);
}

}  // namespace clearfog::collectives
