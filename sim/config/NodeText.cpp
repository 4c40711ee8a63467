#include "config/NodeText.hpp"

#include <vector>

#include <fmt/format.h>

#include "core/Quote.hpp"

namespace clearfog::config {

std::string node_kind_text(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return quote(node.Scalar());
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return "nothing";
  }
  return "nothing";
}

std::string flow_text(const YAML::Node& node) {
  std::vector<std::string> parts;
  switch (node.Type()) {
    case YAML::NodeType::Scalar: return node.Scalar();
    case YAML::NodeType::Sequence:
      for (const auto& element : node) parts.push_back(flow_text(element));
      return fmt::format("[{}]", fmt::join(parts, ", "));
    case YAML::NodeType::Map:
      for (const auto& entry : node) parts.push_back(fmt::format("{}: {}", flow_text(entry.first), flow_text(entry.second)));
      return fmt::format("{{{}}}", fmt::join(parts, ", "));
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: break;
  }
  return "";
}

}  // namespace clearfog::config
