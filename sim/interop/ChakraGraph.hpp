#pragma once
// One rank's Chakra trace as a dependency graph: node ids resolved to positions in the file,
// ctrl_deps and data_deps checked (no dangling id, no cycle) and merged, and an order that puts
// every node after its dependencies — the file's own order wherever it allows.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "interop/ChakraTraceFile.hpp"

namespace clearfog::interop {

class ChakraGraph {
public:
  /// Throws ChakraImportError naming the file and the node for a repeated id, a dependency on an
  /// id the file does not have, or a cycle.
  ChakraGraph(ChakraTrace trace, std::filesystem::path file);

  [[nodiscard]] std::size_t size() const { return trace_.nodes.size(); }
  [[nodiscard]] const ChakraProtoMsg::Node& node(std::size_t i) const { return trace_.nodes[i]; }
  /// Positions of the nodes, each after its dependencies.
  [[nodiscard]] const std::vector<std::size_t>& order() const { return order_; }
  /// Positions of the nodes `i` depends on (control and data), sorted, without repeats.
  [[nodiscard]] const std::vector<std::size_t>& deps(std::size_t i) const { return deps_[i]; }
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  /// "node <id>", the key of diagnostics about node `i`.
  [[nodiscard]] std::string where(std::size_t i) const;
  /// Throws ChakraImportError locating `message` at node i of the trace.
  [[noreturn]] void fail(std::size_t i, std::string message) const;

private:
  void resolve_deps();
  void sort_topologically();

  ChakraTrace trace_;
  std::filesystem::path file_;
  std::vector<std::vector<std::size_t>> deps_;
  std::vector<std::size_t> order_;
};

}  // namespace clearfog::interop
