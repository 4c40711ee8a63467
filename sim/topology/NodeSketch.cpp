#include "topology/NodeSketch.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/Units.hpp"
#include "topology/nodes/NodeBuilders.hpp"

namespace clearfog::topology {
namespace {

std::string bandwidth(double Bps) { return units::format(Bps, units::Dimension::Bandwidth); }

/// Vertex `v`'s neighbours in vertex order, with the link joining them.
std::vector<std::pair<Vertex, const Link*>> neighbours(const TopologyGraph& t, Vertex v) {
  std::vector<std::pair<Vertex, const Link*>> list;
  for (auto [it, end] = boost::out_edges(v, t.graph()); it != end; ++it)
    list.emplace_back(boost::target(*it, t.graph()), &t.links()[t.graph()[*it].index]);
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return list;
}

std::string adjacency(const TopologyGraph& t) {
  std::string text;
  const Graph& g = t.graph();
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    const std::string name = g[v].kind == VertexKind::Switch ? "[" + g[v].name + "]" : g[v].name;
    text += fmt::format("  {}:", name);
    const auto list = neighbours(t, v);
    for (std::size_t i = 0; i < list.size(); ++i)
      text += fmt::format("{} {} {}", i == 0 ? "" : ",", g[list[i].first].name, bandwidth(list[i].second->bandwidth_Bps));
    text += "\n";
  }
  return text;
}

std::string switch_tree(const TopologyGraph& t, const config::NodeSpec& node) {
  const Graph& g = t.graph();
  std::string text = fmt::format("  [switch0]  non-blocking crossbar{}\n",
                                 node.in_switch_reduction ? ", reduces in the switch" : "");
  for (int d = 0; d < t.device_count(); ++d)
    text += fmt::format("    +-- {:<6} {}\n", g[t.device_vertex(d)].name,
                        bandwidth(node.link.bandwidth_Bps));
  return text;
}

std::string pcie_tree(const TopologyGraph& t, const config::NodeSpec& node) {
  const Graph& g = t.graph();
  std::string text = "  [root]  host bridge\n";
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (g[v].kind != VertexKind::Switch || g[v].name == "root") continue;
    text += fmt::format("    +-- [{}]  uplink {}\n", g[v].name, bandwidth(node.pcie_uplink.bandwidth_Bps));
    for (const auto& [u, link] : neighbours(t, v))
      if (g[u].kind == VertexKind::Device)
        text += fmt::format("    |     +-- {:<6} {}\n", g[u].name, bandwidth(link->bandwidth_Bps));
  }
  return text;
}

std::string ring_chain(const TopologyGraph& t, const config::NodeSpec& node) {
  constexpr int kPerLine = 8;
  std::string text = fmt::format("  every link {}\n  ", bandwidth(node.link.bandwidth_Bps));
  for (int d = 0; d < t.device_count(); ++d) {
    text += fmt::format("dev{}", d);
    if (d + 1 < t.device_count()) text += (d + 1) % kPerLine == 0 ? " --\n  -- " : " -- ";
  }
  return text + (t.device_count() > 2 ? " -- (back to dev0)\n" : "\n");
}

std::string torus_grid(const TopologyGraph& t, const config::NodeSpec& node) {
  const auto& dims = node.torus_dims;
  const int x = dims[0], y = dims[1];
  const int z = dims.size() > 2 ? dims[2] : 1;
  const int width = static_cast<int>(fmt::format("dev{}", t.device_count() - 1).size());
  std::string text = fmt::format("  every link {}; '~' marks a wrap-around link to the other end of the row or column",
                                 bandwidth(node.link.bandwidth_Bps));
  if (z > 1) text += fmt::format("; each device also links to its place in the planes above and below{}",
                                 z > 2 ? " (wrapping)" : "");
  text += "\n";
  const int planes = t.device_count() <= kSketchMaxTorusDevices ? z : 1;
  const std::string cell_gap = " -- ";
  auto column_marks = [&](char mark) {
    std::string line = "    ";
    for (int i = 0; i < x; ++i) line += fmt::format("{:<{}}", std::string(1, mark), width + static_cast<int>(cell_gap.size()));
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };
  for (int k = 0; k < planes; ++k) {
    if (z > 1) text += fmt::format("  plane z = {}:\n", k);
    if (y > 2) text += column_marks('~');
    for (int j = 0; j < y; ++j) {
      std::string row = x > 2 ? "  ~ " : "    ";
      for (int i = 0; i < x; ++i) {
        std::vector<int> coord{i, j};
        if (dims.size() > 2) coord.push_back(k);
        row += fmt::format("{:<{}}", fmt::format("dev{}", nodes::torus_device_index(dims, coord)), width);
        if (i + 1 < x) row += cell_gap;
      }
      text += row + (x > 2 ? " ~\n" : "\n");
      if (j + 1 < y) text += column_marks('|');
    }
    if (y > 2) text += column_marks('~');
  }
  if (planes < z) text += fmt::format("  ({} more planes like this one)\n", z - planes);
  return text;
}

}  // namespace

std::string sketch_node(const TopologyGraph& graph, const config::NodeSpec& node) {
  switch (node.topology) {
    case config::NodeTopology::Switch: return switch_tree(graph, node);
    case config::NodeTopology::PcieTree: return pcie_tree(graph, node);
    case config::NodeTopology::Ring: return ring_chain(graph, node);
    case config::NodeTopology::Torus: return torus_grid(graph, node);
    default: return adjacency(graph);
  }
}

}  // namespace clearfog::topology
