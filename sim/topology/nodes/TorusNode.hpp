#pragma once
#include <string>
#include <vector>

#include "topology/NodeTopologyType.hpp"

namespace clearfog::topology::nodes {

/// A torus's or a mesh's parameters (node.torus.dims, node.mesh.dims).
struct GridParams final : config::NodeParams {
  std::vector<int> dims;  // extent of each dimension, product = devices
};

/// torus: a 2D/3D grid with wrap-around links (TPU ICI).
const NodeTopologyType& torus_node();

/// Device index of grid coordinates, dimension 0 varying fastest (the numbering of tori and meshes).
int torus_device_index(const std::vector<int>& dims, const std::vector<int>& coord);
/// Coordinates of a grid device, the inverse of torus_device_index().
std::vector<int> torus_coordinates(const std::vector<int>& dims, int device);

/// `key` (node.torus.dims, node.mesh.dims): 2 or 3 extents whose product is node.devices.
config::KeySpec grid_dims_key(std::string key, std::string example);
void check_grid_dims(const config::ConfigDocument& doc, std::string_view key, std::string_view kind,
                     std::int64_t devices, std::vector<Diagnostic>& out);
/// The grid's layout: devices at their coordinates, neighbours along each dimension linked, and
/// the ends of each dimension too where `wrap`.
NodeLayout build_grid(const config::NodeSpec& node, std::string_view kind, bool wrap);
/// A drawing of a grid plane by plane ('~' marks wrap-around links where `wrap`).
std::string grid_sketch(const TopologyGraph& t, const config::NodeSpec& node, bool wrap);

}  // namespace clearfog::topology::nodes
