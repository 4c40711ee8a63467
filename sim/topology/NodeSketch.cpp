#include "topology/NodeSketch.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/Units.hpp"
#include "topology/NodeTopologyType.hpp"

namespace clearfog::topology {
namespace {

}  // namespace

std::string sketch_bandwidth(double Bps) { return units::format(Bps, units::Dimension::Bandwidth); }

std::vector<std::pair<Vertex, const Link*>> sketch_neighbours(const TopologyGraph& t, Vertex v) {
  std::vector<std::pair<Vertex, const Link*>> list;
  for (auto [it, end] = boost::out_edges(v, t.graph()); it != end; ++it)
    list.emplace_back(boost::target(*it, t.graph()), &t.links()[t.graph()[*it].index]);
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return list;
}

namespace {

std::string adjacency(const TopologyGraph& t) {
  std::string text;
  const Graph& g = t.graph();
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    const std::string name = g[v].kind == VertexKind::Switch ? "[" + g[v].name + "]" : g[v].name;
    text += fmt::format("  {}:", name);
    const auto list = sketch_neighbours(t, v);
    for (std::size_t i = 0; i < list.size(); ++i)
      text += fmt::format("{} {} {}", i == 0 ? "" : ",", g[list[i].first].name, sketch_bandwidth(list[i].second->bandwidth_Bps));
    text += "\n";
  }
  return text;
}

}  // namespace

std::string sketch_node(const TopologyGraph& graph, const config::NodeSpec& node) {
  return node_topology_type(node.topology).sketch(graph, node).value_or(adjacency(graph));
}

}  // namespace clearfog::topology
