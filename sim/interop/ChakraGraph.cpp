#include "interop/ChakraGraph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>

#include "interop/ChakraImportError.hpp"

namespace clearfog::interop {

ChakraGraph::ChakraGraph(ChakraTrace trace, std::filesystem::path file)
    : trace_(std::move(trace)), file_(std::move(file)), deps_(trace_.nodes.size()) {
  resolve_deps();
  sort_topologically();
}

std::string ChakraGraph::where(std::size_t i) const { return fmt::format("node {}", trace_.nodes[i].id()); }

void ChakraGraph::resolve_deps() {
  std::unordered_map<std::uint64_t, std::size_t> position;
  for (std::size_t i = 0; i < size(); ++i)
    if (!position.emplace(node(i).id(), i).second)
      throw ChakraImportError(file_.string(), where(i),
                              fmt::format("the id is used by node {} of the file too; allowed: one node per id",
                                          position[node(i).id()]));
  for (std::size_t i = 0; i < size(); ++i) {
    const auto add = [&](std::uint64_t id, std::string_view field) {
      const auto it = position.find(id);
      if (it == position.end())
        throw ChakraImportError(file_.string(), where(i),
                                fmt::format("{} names node {}, which {} does not have; allowed: ids of nodes of "
                                            "the same file",
                                            field, id, file_.filename().string()));
      deps_[i].push_back(it->second);
    };
    for (const auto id : node(i).ctrl_deps()) add(id, "ctrl_deps");
    for (const auto id : node(i).data_deps()) add(id, "data_deps");
    std::sort(deps_[i].begin(), deps_[i].end());
    deps_[i].erase(std::unique(deps_[i].begin(), deps_[i].end()), deps_[i].end());
  }
}

/// Kahn's algorithm, taking the ready node that comes first in the file.
void ChakraGraph::sort_topologically() {
  std::vector<std::size_t> waiting(size(), 0);
  std::vector<std::vector<std::size_t>> dependents(size());
  for (std::size_t i = 0; i < size(); ++i) {
    waiting[i] = deps_[i].size();
    for (const auto d : deps_[i]) dependents[d].push_back(i);
  }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < size(); ++i)
    if (waiting[i] == 0) ready.push(i);
  order_.reserve(size());
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    order_.push_back(i);
    for (const auto d : dependents[i])
      if (--waiting[d] == 0) ready.push(d);
  }
  if (order_.size() == size()) return;
  const auto stuck = static_cast<std::size_t>(std::find_if(waiting.begin(), waiting.end(), [](std::size_t w) {
                                                return w > 0;
                                              }) - waiting.begin());
  throw ChakraImportError(file_.string(), where(stuck),
                          fmt::format("it is in or behind a dependency cycle ({} nodes of the file cannot be ordered); "
                                      "allowed: ctrl_deps and data_deps without cycles",
                                      size() - order_.size()));
}

void ChakraGraph::fail(std::size_t i, std::string message) const {
  throw ChakraImportError(file_.string(), where(i), std::move(message));
}

}  // namespace clearfog::interop
