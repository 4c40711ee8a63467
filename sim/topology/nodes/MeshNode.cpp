// mesh: devices on a 2D or 3D grid, dimension 0 varying fastest, each linked to its neighbours
// along every dimension and nothing more: the ends of a row are not joined, so a row of k devices
// has k - 1 links and the longest route crosses (x-1) + (y-1) (+ (z-1)) links. The grid, its keys
// and its drawing are the torus's (TorusNode.hpp) without the wrap-around.
#include "topology/nodes/MeshNode.hpp"

#include <algorithm>

#include "topology/RingOrder.hpp"
#include "topology/nodes/TorusNode.hpp"

namespace clearfog::topology::nodes {

std::vector<int> mesh_cycle(const std::vector<int>& dims) {
  if (dims.size() != 2 || dims[0] < 2 || dims[1] < 2 || (dims[0] % 2 != 0 && dims[1] % 2 != 0)) return {};
  // Rows along the even extent's dimension: walk row r over columns 1 … c-1 (reversing every other
  // row), an even number of rows ending next to column 0, then back up column 0.
  const bool rows_along_y = dims[1] % 2 == 0;
  const int rows = rows_along_y ? dims[1] : dims[0], columns = rows_along_y ? dims[0] : dims[1];
  const auto device = [&](int column, int row) {
    return rows_along_y ? torus_device_index(dims, {column, row}) : torus_device_index(dims, {row, column});
  };
  std::vector<int> cycle{device(0, 0)};
  for (int r = 0; r < rows; ++r)
    for (int k = 1; k < columns; ++k) cycle.push_back(device(r % 2 == 0 ? k : columns - k, r));
  for (int r = rows - 1; r > 0; --r) cycle.push_back(device(0, r));
  return cycle;
}

namespace {

class MeshNode final : public NodeTopologyType {
public:
  std::string_view name() const override { return "mesh"; }
  std::string_view summary() const override {
    return "a 2D/3D grid without wrap-around links (Dojo's training tile, a board of chips)";
  }
  std::vector<config::KeySpec> keys() const override { return {grid_dims_key("node.mesh.dims", "[5, 5]")}; }
  void check(const config::ConfigDocument& doc, std::int64_t devices, std::vector<Diagnostic>& out) const override {
    check_grid_dims(doc, "node.mesh.dims", "mesh", devices, out);
  }
  std::shared_ptr<const config::NodeParams> read(const config::ConfigDocument& doc) const override {
    auto p = std::make_shared<GridParams>();
    p->dims = doc.get_int_list("node.mesh.dims");
    return p;
  }
  NodeLayout build(const config::NodeSpec& node) const override { return build_grid(node, "mesh", false); }
  /// Cut across the middle of the longest dimension d_max: one link per line of devices along it.
  std::optional<Bisection> bisection(const config::NodeSpec& node) const override {
    const auto& dims = node.params_as<GridParams>().dims;
    const int longest = *std::max_element(dims.begin(), dims.end());
    return Bisection{static_cast<double>(node.devices) / longest * node.link.bandwidth_Bps,
                     "closed form: n/d_max links across the longest dimension"};
  }
  std::optional<std::vector<int>> ring_order(const config::NodeSpec& node) const override {
    const auto& dims = node.params_as<GridParams>().dims;
    if (auto cycle = mesh_cycle(dims); !cycle.empty()) return cycle;
    return torus_snake_order(dims);  // a path of neighbours, closed through the grid
  }
  std::optional<std::string> sketch(const TopologyGraph& t, const config::NodeSpec& node) const override {
    return grid_sketch(t, node, false);
  }
};

}  // namespace

const NodeTopologyType& mesh_node() {
  static const MeshNode kind;
  return kind;
}

}  // namespace clearfog::topology::nodes
