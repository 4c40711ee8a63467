// The registry of collective algorithms: one line per algorithm, in docs order. The order is also
// the order of best's candidates (ties go to the first) and of the collective tables' rows.
#include <fmt/format.h>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/Direct.hpp"
#include "collectives/HalvingDoubling.hpp"
#include "collectives/Hierarchical.hpp"
#include "collectives/InSwitch.hpp"
#include "collectives/NvlsTree.hpp"
#include "collectives/Pat.hpp"
#include "collectives/Ring.hpp"
#include "collectives/Tree.hpp"
#include "core/Errors.hpp"

namespace clearfog::collectives {

const std::vector<const CollectiveAlgorithmType*>& collective_algorithm_types() {
  static const std::vector<const CollectiveAlgorithmType*> all = {
      &ring_algorithm(),         &tree_algorithm(),      &halving_doubling_algorithm(), &direct_algorithm(),
      &hierarchical_algorithm(), &in_switch_algorithm(), &nvls_tree_algorithm(),
      &pat_algorithm(),
  };
  return all;
}

config::CollectiveAlgorithm collective_algorithm(std::string_view name) {
  const auto& types = collective_algorithm_types();
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i]->name() == name) return config::CollectiveAlgorithm::registered(static_cast<int>(i));
    names.push_back(types[i]->name());
  }
  throw Error(fmt::format("unknown collective algorithm '{}'; registered: {}", name, fmt::join(names, ", ")));
}

std::string collective_algorithms_fingerprint() {
  std::string text;
  for (const auto* t : collective_algorithm_types()) text += fmt::format("{} {},", t->name(), t->version());
  return text;
}

std::optional<double> CollectiveAlgorithmType::pipeline_chunk_B(config::CollectiveOp /*op*/,
                                                                const ChunkContext& /*c*/) const {
  return std::nullopt;
}

GroupShape group_shape(const CollectiveRequest& r) {
  const int p = static_cast<int>(r.ranks.size()), m = r.ranks_per_node;
  GroupShape g{.members = p, .spans_nodes = {}, .ranks_per_node = {}, .reducing_switch = {}};
  if (m > 0) {
    g.ranks_per_node = p % m == 0 ? m : 0;
    g.spans_nodes = m < p;
  }
  if (!r.switch_endpoints.empty()) g.reducing_switch = true;
  return g;
}

}  // namespace clearfog::collectives

namespace clearfog::config {

const std::vector<const CollectiveAlgorithmSchema*>& collective_algorithm_schemas() {
  static const std::vector<const CollectiveAlgorithmSchema*> all(collectives::collective_algorithm_types().begin(),
                                                                 collectives::collective_algorithm_types().end());
  return all;
}

const collectives::CollectiveAlgorithmType& CollectiveAlgorithm::type() const {
  if (!is_concrete()) throw Error(fmt::format("'{}' is a policy that picks an algorithm, not an algorithm", name()));
  return *collectives::collective_algorithm_types().at(static_cast<std::size_t>(id_));
}

std::string_view CollectiveAlgorithm::name() const {
  if (is_nccl()) return "nccl";
  if (is_best()) return "best";
  return type().name();
}

std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view name) {
  if (name == kBestAlias) return CollectiveAlgorithm::best();
  for (CollectiveAlgorithm a : collective_algorithm_choices())
    if (a.name() == name) return a;
  return std::nullopt;
}

std::vector<CollectiveAlgorithm> collective_algorithm_choices() {
  std::vector<CollectiveAlgorithm> all = {CollectiveAlgorithm::nccl(), CollectiveAlgorithm::best()};
  const auto count = collectives::collective_algorithm_types().size();
  for (std::size_t i = 0; i < count; ++i) all.push_back(CollectiveAlgorithm::registered(static_cast<int>(i)));
  return all;
}

}  // namespace clearfog::config
