#pragma once
// What the configuration layer needs from a collective algorithm: its name and summary (the key's
// choices and reference), the operations it implements and the one rule for whether it can run
// over a group. Each algorithm implements this in its file under collectives/ (with its schedule,
// collectives/CollectiveAlgorithmType.hpp) and is listed once in collectives/CollectiveAlgorithms.cpp,
// which defines the registry: the configuration layer declares the interface it needs, the
// collectives layer provides it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/CollectiveSpec.hpp"

namespace clearfog::config {

/// What decides whether an algorithm can run over a group. A field left empty is not known to the
/// asker (a scenario being validated knows a group's size, not yet where the layout puts it) and
/// refuses nothing.
struct GroupShape {
  int members = 0;
  std::optional<bool> spans_nodes;
  /// Members per node when they come in equal runs of consecutive members of one node; 0: uneven.
  std::optional<int> ranks_per_node;
  /// Each node's switch reduces (NVLink SHARP): the group's nodes have a reducing endpoint.
  std::optional<bool> reducing_switch;
};

class CollectiveAlgorithmSchema {
public:
  CollectiveAlgorithmSchema() = default;
  CollectiveAlgorithmSchema(const CollectiveAlgorithmSchema&) = delete;
  CollectiveAlgorithmSchema& operator=(const CollectiveAlgorithmSchema&) = delete;
  virtual ~CollectiveAlgorithmSchema() = default;

  /// The name scenarios and `--algo` use ("ring", "nvls-tree").
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// One clause for the key's reference: "NCCL's tree (chains in nodes, double binary tree across)".
  [[nodiscard]] virtual std::string_view summary() const = 0;
  [[nodiscard]] virtual bool implements(CollectiveOp op) const = 0;
  /// Why the algorithm cannot run `op` (implemented) over `group`, in words that finish "cannot
  /// run: …"; nullopt where it can. The one rule: validation, the runtime choice and the request
  /// check all ask it.
  [[nodiscard]] virtual std::optional<std::string> refusal(CollectiveOp /*op*/, const GroupShape& /*group*/) const {
    return std::nullopt;
  }
  /// Whether the nodes' switches reduce: the request then carries each node's switch endpoint,
  /// runs at the switch's efficiency and pays its setup once.
  [[nodiscard]] virtual bool reduces_in_switch() const { return false; }
};

/// Every registered algorithm, in docs order (defined by collectives/CollectiveAlgorithms.cpp).
const std::vector<const CollectiveAlgorithmSchema*>& collective_algorithm_schemas();

}  // namespace clearfog::config
