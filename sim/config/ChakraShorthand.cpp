#include "config/ChakraShorthand.hpp"

#include <yaml-cpp/yaml.h>

namespace clearfog::config {

void imply_chakra_workload(DocumentKind kind, const NodeSource& source, const std::set<std::string>& invalid,
                           std::map<std::string, RawValue>& raw) {
  if (kind != DocumentKind::Workload) return;
  const auto dir = raw.find("chakra");
  if (dir == raw.end()) return;
  for (const char* key : {"type", "name", "source"}) {
    if (raw.count(key) || invalid.count(key)) continue;
    // A fresh node: assigning to a copy of the directory's YAML node would change that node.
    const std::string value = std::string(key) == "type" ? "chakra" : dir->second.node.Scalar();
    raw.emplace(key, RawValue{YAML::Node(value), dir->second.source, dir->second.location, source.display(key),
                              Origin::Defaulted});
  }
}

}  // namespace clearfog::config
