#pragma once
// `algorithm: auto`: which algorithm and protocol to use for an operation of a given size on a
// platform, decided the way MCR-DL mixes communication backends and NCCL's tuner picks
// (algorithm, protocol): by comparing the candidates — here by simulating each one on the
// platform. The table is built once per (platform, ranks, fidelity), cached on disk and printable.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/CollectiveSpec.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::driver {

struct TuningChoice {
  config::CollectiveAlgorithm algorithm = config::CollectiveAlgorithm::Ring;
  std::string protocol;
  double time_s = 0;
};

struct TuningRow {
  config::CollectiveOp op = config::CollectiveOp::AllReduce;
  double bytes = 0;
  std::vector<TuningChoice> candidates;  // fastest first
};

/// Algorithms that can run `op` over `ranks` devices of this platform (in-switch only with a
/// reducing switch, hierarchical only across nodes, halving-doubling only for powers of two).
std::vector<config::CollectiveAlgorithm> candidate_algorithms(const topology::ClusterTopology& cluster,
                                                              config::CollectiveOp op, int ranks);

class TuningTable {
public:
  /// Simulates every candidate (algorithm x protocol) of every op at sizes 1 KiB, 4 KiB, … 4 GiB.
  static TuningTable build(const topology::ClusterTopology& cluster, int ranks, config::Fidelity fidelity,
                           const std::vector<config::CollectiveOp>& ops);

  /// The fastest choice for `op` at `bytes`: the row of the largest tuned size not above `bytes`
  /// (the smallest row below 1 KiB). With `only`, the fastest protocol of that algorithm.
  /// Throws Error if the op was not tuned or `only` cannot run it.
  [[nodiscard]] TuningChoice select(config::CollectiveOp op, double bytes,
                                    std::optional<config::CollectiveAlgorithm> only = std::nullopt) const;

  [[nodiscard]] const std::vector<TuningRow>& rows() const { return rows_; }
  /// Adds the rows of `other` (for ops this table lacks).
  void merge(const TuningTable& other) { rows_.insert(rows_.end(), other.rows_.begin(), other.rows_.end()); }
  [[nodiscard]] bool covers(config::CollectiveOp op) const;
  [[nodiscard]] std::string render() const;  // one line per (op, size): winner and all candidates
  [[nodiscard]] nlohmann::json to_json() const;
  static TuningTable from_json(const nlohmann::json& j);

private:
  std::vector<TuningRow> rows_;
};

/// The table for this platform from the cache directory ($CLEARFOG_CACHE_DIR, else
/// $XDG_CACHE_HOME/clearfog, else ~/.cache/clearfog), built and stored if missing or if it lacks
/// one of `ops`. The cache key is a hash of everything in the platform that affects timing.
TuningTable cached_tuning_table(const topology::ClusterTopology& cluster, int ranks, config::Fidelity fidelity,
                                const std::vector<config::CollectiveOp>& ops);

}  // namespace clearfog::driver
