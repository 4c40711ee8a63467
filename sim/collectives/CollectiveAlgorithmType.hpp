#pragma once
// A collective algorithm (ring, tree, …): its configuration schema (name, operations, the one rule
// for whether it can run over a group: config/CollectiveAlgorithmSchema.hpp), its NCCL counterpart,
// how it chunks a buffer, and its schedule.
// Each algorithm is one file (Ring.cpp, Tree.cpp, …) and one line in CollectiveAlgorithms.cpp;
// everything else — the `collectives.algorithm` choices and their docs, `clearfog collective
// --algo`, best's candidates, the tuning cache's key — derives from that list. docs/extending.md
// walks through adding one.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/CollectiveRequest.hpp"
#include "collectives/NcclTuner.hpp"
#include "collectives/Schedule.hpp"
#include "config/CollectiveAlgorithmSchema.hpp"
#include "config/CollectiveSpec.hpp"

namespace clearfog::collectives {

using config::GroupShape;

/// What an algorithm's pipelining depends on (NCCL sizes its chunks from these).
struct ChunkContext {
  int members = 0;
  int ranks_per_node = 0;  // as in GroupShape; 0: uneven or one member per node unknown
  int channels = 1;
  config::Protocol protocol = config::Protocol::Simple;
  double bytes = 0;        // payload, before protocol overhead
};

class CollectiveAlgorithmType : public config::CollectiveAlgorithmSchema {
public:
  /// Raised whenever the algorithm's schedule, chunking or rule changes: it is part of the tuning
  /// cache's key (driver/TuningTable.cpp), so a table simulated with the old one is not reused.
  [[nodiscard]] virtual int version() const = 0;
  /// NCCL's algorithm of the same schedule, whose protocol, channels and time estimate it takes;
  /// nullopt: NCCL has none, and the algorithm takes the ring's protocol and channels.
  [[nodiscard]] virtual std::optional<NcclAlgorithm> nccl_counterpart() const { return std::nullopt; }
  /// Whether it runs protocol `p` (NVLS runs Simple only).
  [[nodiscard]] virtual bool runs_protocol(config::Protocol /*p*/) const { return true; }
  /// The payload one pipeline round carries for `op`: 0 whole buffers, nullopt the platform's
  /// calibrated chunk (collectives.chunk, with which the step overhead was fitted).
  [[nodiscard]] virtual std::optional<double> pipeline_chunk_B(config::CollectiveOp op, const ChunkContext& c) const;
  /// Whether the protocol's step cost is paid once per member rather than per step: NCCL streams a
  /// pipelined algorithm's chunks through NCCL_STEPS buffer slots, so their synchronisation overlaps.
  [[nodiscard]] virtual bool pipelined(config::CollectiveOp /*op*/) const { return false; }
  /// Whether `op`'s channels follow the ring family of the node's links (topology/RingFamily.hpp).
  [[nodiscard]] virtual bool follows_ring_family(config::CollectiveOp /*op*/) const { return false; }
  /// Request fields the algorithm alone reads, checked (throws clearfog::Error); the shared checks
  /// and the refusal rule have run.
  virtual void check(const program::Plan& /*plan*/, const CollectiveRequest& /*request*/) const {}
  /// The schedule of `request` (participants: the members in ring order, then the switches).
  [[nodiscard]] virtual Schedule schedule(const CollectiveRequest& request) const = 0;
};

/// Every registered algorithm, in docs order (CollectiveAlgorithms.cpp).
const std::vector<const CollectiveAlgorithmType*>& collective_algorithm_types();
/// The registered algorithm named `name`; throws clearfog::Error listing the registered ones.
config::CollectiveAlgorithm collective_algorithm(std::string_view name);
/// `name version` of every registered algorithm: what the tuning cache's key depends on.
std::string collective_algorithms_fingerprint();

/// The shape of a request's group as far as the request says (ranks_per_node 0: not said).
GroupShape group_shape(const CollectiveRequest& request);

}  // namespace clearfog::collectives
