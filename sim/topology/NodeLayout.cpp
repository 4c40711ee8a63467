#include "topology/NodeLayout.hpp"

#include <fmt/format.h>

namespace clearfog::topology {

std::size_t NodeLayout::add_device(int device) {
  vertices.push_back(VertexProps{VertexKind::Device, fmt::format("dev{}", device), device});
  return vertices.size() - 1;
}

std::size_t NodeLayout::add_switch(std::string name) {
  vertices.push_back(VertexProps{VertexKind::Switch, std::move(name), -1});
  return vertices.size() - 1;
}

void NodeLayout::add_link(std::size_t a, std::size_t b, double bandwidth_Bps, double latency_s) {
  links.push_back(
      Link{fmt::format("{}-{}", vertices.at(a).name, vertices.at(b).name), a, b, bandwidth_Bps, latency_s});
}

}  // namespace clearfog::topology
