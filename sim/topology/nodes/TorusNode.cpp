// torus: devices on a 2D or 3D grid, dimension 0 varying fastest, with wrap-around links in every
// dimension. Along a dimension of extent 2 the two devices are neighbours both ways round, but
// share a single link; a dimension of extent 1 has no link.
#include <fmt/format.h>

#include "core/Errors.hpp"
#include "topology/nodes/NodeBuilders.hpp"

namespace clearfog::topology::nodes {

int torus_device_index(const std::vector<int>& dims, const std::vector<int>& coord) {
  int index = 0;
  for (std::size_t i = dims.size(); i-- > 0;) index = index * dims[i] + coord[i];
  return index;
}

std::vector<int> torus_coordinates(const std::vector<int>& dims, int device) {
  std::vector<int> coord(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i) {
    coord[i] = device % dims[i];
    device /= dims[i];
  }
  return coord;
}

NodeLayout build_torus_node(const config::NodeSpec& node) {
  const auto& dims = node.torus_dims;
  if (dims.size() != 2 && dims.size() != 3)
    throw Error(fmt::format("topology: torus: node.torus_dims must have 2 or 3 extents, got {}", dims.size()));
  long product = 1;
  for (int e : dims) {
    if (e < 1) throw Error(fmt::format("topology: torus: node.torus_dims extents must be >= 1, got {}", e));
    product *= e;
  }
  if (product != node.devices)
    throw Error(fmt::format("topology: torus: the product of node.torus_dims ({}) must equal node.devices ({})",
                            product, node.devices));

  NodeLayout layout;
  for (int d = 0; d < node.devices; ++d) layout.add_device(d);
  for (int d = 0; d < node.devices; ++d) {
    const std::vector<int> coord = torus_coordinates(dims, d);
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 1) continue;
      if (dims[i] == 2 && coord[i] == 1) continue;  // the pair's one link was added from coordinate 0
      std::vector<int> next = coord;
      next[i] = (coord[i] + 1) % dims[i];
      layout.add_link(static_cast<std::size_t>(d), static_cast<std::size_t>(torus_device_index(dims, next)),
                      node.link.bandwidth_Bps, node.link.latency_s);
    }
  }
  return layout;
}

}  // namespace clearfog::topology::nodes
