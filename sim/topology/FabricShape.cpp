#include "topology/FabricShape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/Errors.hpp"

namespace clearfog::topology {
namespace {

long product(const std::vector<int>& values) {
  long p = 1;
  for (int v : values) p *= v;
  return p;
}

void require_positive(const std::vector<int>& values, std::string_view key) {
  if (values.empty()) throw Error(fmt::format("topology: fabric.{} must not be empty", key));
  for (int v : values)
    if (v < 1) throw Error(fmt::format("topology: fabric.{}: every entry must be >= 1, got {}", key, v));
}

/// Bisection links of a group of `count` elements joined all-to-all by `links` links per pair.
double all_to_all_cut(int count, int links) {
  return static_cast<double>(count / 2) * static_cast<double>((count + 1) / 2) * links;
}

}  // namespace

int fabric_leaf_count(const config::FabricSpec& fabric) {
  switch (fabric.topology) {
    case config::FabricTopology::FatTree: {
      require_positive(fabric.fat_tree_down, "fat_tree_down");
      require_positive(fabric.fat_tree_up, "fat_tree_up");
      require_positive(fabric.fat_tree_parallel, "fat_tree_parallel");
      const std::size_t levels = fabric.fat_tree_down.size();
      if (fabric.fat_tree_up.size() != levels || fabric.fat_tree_parallel.size() != levels)
        throw Error(fmt::format("topology: fabric.fat_tree_down, fat_tree_up and fat_tree_parallel must have one entry "
                                "per level, got {}, {} and {}",
                                levels, fabric.fat_tree_up.size(), fabric.fat_tree_parallel.size()));
      return static_cast<int>(product(fabric.fat_tree_down));
    }
    case config::FabricTopology::Torus:
      require_positive(fabric.torus_dims, "torus_dims");
      return static_cast<int>(product(fabric.torus_dims));
    case config::FabricTopology::Dragonfly: {
      const auto& d = fabric.dragonfly;
      for (std::size_t i = 0; i < d.size(); ++i)
        if (d[i] < 1)
          throw Error(fmt::format("topology: fabric.dragonfly[{}] must be >= 1 (groups, links, chassis, links, routers, "
                                  "links, nodes), got {}",
                                  i, d[i]));
      return d[0] * d[2] * d[4] * d[6];
    }
  }
  throw Error("topology: unknown fabric topology");
}

double fabric_bisection_Bps(const config::FabricSpec& fabric) {
  const int leaves = fabric_leaf_count(fabric);
  const double link = fabric.link.bandwidth_Bps;
  switch (fabric.topology) {
    case config::FabricTopology::FatTree: {
      const auto& down = fabric.fat_tree_down;
      const auto& up = fabric.fat_tree_up;
      const auto& parallel = fabric.fat_tree_parallel;
      const std::size_t levels = down.size();
      double narrowest = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < levels; ++i) {
        double nodes_at_level = 1;  // level 0: the leaves
        for (std::size_t j = 0; j < i; ++j) nodes_at_level *= up[j];
        for (std::size_t j = i; j < levels; ++j) nodes_at_level *= down[j];
        narrowest = std::min(narrowest, nodes_at_level * up[i] * parallel[i] / 2.0);
      }
      return narrowest * link;
    }
    case config::FabricTopology::Torus: {
      const int longest = *std::max_element(fabric.torus_dims.begin(), fabric.torus_dims.end());
      if (longest == 1) return 0;
      return 2.0 * leaves / longest * link;
    }
    case config::FabricTopology::Dragonfly: {
      const auto& d = fabric.dragonfly;
      const int groups = d[0], chassis = d[2], routers = d[4], nodes = d[6];
      if (groups > 1) return all_to_all_cut(groups, d[1]) * link;
      if (chassis > 1) return all_to_all_cut(chassis, d[3]) * routers * link;
      if (routers > 1) return all_to_all_cut(routers, d[5]) * link;
      return static_cast<double>(nodes / 2) * link;  // the leaves' own links to their router
    }
  }
  return 0;
}

int fabric_diameter_links(const config::FabricSpec& fabric) {
  switch (fabric.topology) {
    case config::FabricTopology::FatTree: return 2 * static_cast<int>(fabric.fat_tree_down.size());
    case config::FabricTopology::Torus: {
      int hops = 0;
      for (int extent : fabric.torus_dims) hops += extent / 2;
      return hops;
    }
    case config::FabricTopology::Dragonfly: {
      const auto& d = fabric.dragonfly;
      if (d[0] > 1) return 7;
      if (d[2] > 1) return 5;  // node-router, green, black, green, router-node
      if (d[4] > 1) return 3;
      return 2;
    }
  }
  return 0;
}

}  // namespace clearfog::topology
