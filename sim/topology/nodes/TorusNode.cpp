// torus: devices on a 2D or 3D grid, dimension 0 varying fastest, with wrap-around links in every
// dimension. Along a dimension of extent 2 the two devices are neighbours both ways round, but
// share a single link; a dimension of extent 1 has no link.
#include "topology/nodes/TorusNode.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "config/CheckSupport.hpp"
#include "core/Errors.hpp"
#include "topology/NodeSketch.hpp"
#include "topology/RingOrder.hpp"
#include "topology/TopologyGraph.hpp"

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

config::KeySpec grid_dims_key(std::string key, std::string example) {
  return {.path = std::move(key),
          .type = config::KeyType::Integer,
          .constraint = config::Constraint::AtLeastOne,
          .description = fmt::format("Extent of each dimension, e.g. {}; the product must be node.devices.", example),
          .list = true};
}

void check_grid_dims(const config::ConfigDocument& doc, std::string_view key, std::string_view kind,
                     std::int64_t devices, std::vector<Diagnostic>& out) {
  const config::ConfigValue* dims = config::used(doc, key);
  if (!dims) return;
  if (const std::size_t n = dims->as_list().size(); n == 2 || n == 3)
    config::check_product(*dims, "dimensions", devices, "node.devices", out);
  else
    config::report_at(*dims,
                      fmt::format("a {} node has 2 or 3 dimensions, got {}; e.g. [8, 8] or [4, 4, 4] (product "
                                  "node.devices {})",
                                  kind, n, devices),
                      out);
}

NodeLayout build_grid(const config::NodeSpec& node, std::string_view kind, bool wrap) {
  const auto& dims = node.params_as<GridParams>().dims;
  if (dims.size() != 2 && dims.size() != 3)
    throw Error(fmt::format("topology: {}: node.{}.dims must have 2 or 3 extents, got {}", kind, kind, dims.size()));
  long product = 1;
  for (int e : dims) {
    if (e < 1) throw Error(fmt::format("topology: {}: node.{}.dims extents must be >= 1, got {}", kind, kind, e));
    product *= e;
  }
  if (product != node.devices)
    throw Error(fmt::format("topology: {}: the product of node.{}.dims ({}) must equal node.devices ({})", kind, kind,
                            product, node.devices));

  NodeLayout layout;
  for (int d = 0; d < node.devices; ++d) layout.add_device(d);
  for (int d = 0; d < node.devices; ++d) {
    const std::vector<int> coord = torus_coordinates(dims, d);
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 1) continue;
      if (coord[i] + 1 == dims[i] && (!wrap || dims[i] == 2)) continue;  // no wrap, or the pair's one link
      std::vector<int> next = coord;
      next[i] = (coord[i] + 1) % dims[i];
      layout.add_link(static_cast<std::size_t>(d), static_cast<std::size_t>(torus_device_index(dims, next)),
                      node.link.bandwidth_Bps, node.link.latency_s);
    }
  }
  return layout;
}

std::string grid_sketch(const TopologyGraph& t, const config::NodeSpec& node, bool wrap) {
  const auto& dims = node.params_as<GridParams>().dims;
  const int x = dims[0], y = dims[1];
  const int z = dims.size() > 2 ? dims[2] : 1;
  const int width = static_cast<int>(fmt::format("dev{}", t.device_count() - 1).size());
  std::string text = fmt::format("  every link {}", sketch_bandwidth(node.link.bandwidth_Bps));
  if (wrap) text += "; '~' marks a wrap-around link to the other end of the row or column";
  if (z > 1)
    text += fmt::format("; each device also links to its place in the planes above and below{}",
                        wrap && z > 2 ? " (wrapping)" : "");
  text += "\n";
  const bool wraps_x = wrap && x > 2, wraps_y = wrap && y > 2;
  const int planes = t.device_count() <= kSketchMaxTorusDevices ? z : 1;
  const std::string cell_gap = " -- ";
  auto column_marks = [&](char mark) {
    std::string line = "    ";
    for (int i = 0; i < x; ++i)
      line += fmt::format("{:<{}}", std::string(1, mark), width + static_cast<int>(cell_gap.size()));
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };
  for (int k = 0; k < planes; ++k) {
    if (z > 1) text += fmt::format("  plane z = {}:\n", k);
    if (wraps_y) text += column_marks('~');
    for (int j = 0; j < y; ++j) {
      std::string row = wraps_x ? "  ~ " : "    ";
      for (int i = 0; i < x; ++i) {
        std::vector<int> coord{i, j};
        if (dims.size() > 2) coord.push_back(k);
        row += fmt::format("{:<{}}", fmt::format("dev{}", torus_device_index(dims, coord)), width);
        if (i + 1 < x) row += cell_gap;
      }
      text += row + (wraps_x ? " ~\n" : "\n");
      if (j + 1 < y) text += column_marks('|');
    }
    if (wraps_y) text += column_marks('~');
  }
  if (planes < z) text += fmt::format("  ({} more planes like this one)\n", z - planes);
  return text;
}

namespace {

class TorusNode final : public NodeTopologyType {
public:
  std::string_view name() const override { return "torus"; }
  std::string_view summary() const override { return "a 2D/3D torus with wrap-around links (TPU ICI)"; }
  std::vector<config::KeySpec> keys() const override { return {grid_dims_key("node.torus.dims", "[4, 4, 4]")}; }
  void check(const config::ConfigDocument& doc, std::int64_t devices, std::vector<Diagnostic>& out) const override {
    check_grid_dims(doc, "node.torus.dims", "torus", devices, out);
  }
  std::shared_ptr<const config::NodeParams> read(const config::ConfigDocument& doc) const override {
    auto p = std::make_shared<GridParams>();
    p->dims = doc.get_int_list("node.torus.dims");
    return p;
  }
  NodeLayout build(const config::NodeSpec& node) const override { return build_grid(node, "torus", true); }
  std::optional<Bisection> bisection(const config::NodeSpec& node) const override {
    const auto& dims = node.params_as<GridParams>().dims;
    const int n = node.devices, longest = *std::max_element(dims.begin(), dims.end());
    const double b = node.link.bandwidth_Bps;
    if (longest == 2) return Bisection{(n / 2) * b, "closed form: n/2 links across an extent of 2"};
    return Bisection{2.0 * n / longest * b, "closed form: 2n/d_max links across the longest dimension"};
  }
  std::optional<std::vector<int>> ring_order(const config::NodeSpec& node) const override {
    return torus_snake_order(node.params_as<GridParams>().dims);
  }
  std::optional<std::string> sketch(const TopologyGraph& t, const config::NodeSpec& node) const override {
    return grid_sketch(t, node, true);
  }
};

}  // namespace

const NodeTopologyType& torus_node() {
  static const TorusNode kind;
  return kind;
}

}  // namespace clearfog::topology::nodes
