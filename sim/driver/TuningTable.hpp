#pragma once
// `algorithm: best` (also spelt auto): the fastest algorithm and protocol for an operation of a
// given size on a device group, the way MCR-DL mixes communication backends: by simulating every
// candidate on the platform. Unlike `nccl` (NcclTuner) it asks the simulator, not NCCL's cost
// model. The table is built once per (platform, group, fidelity), cached on disk and printable.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/CollectiveSpec.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::driver {

struct TuningChoice {
  config::CollectiveAlgorithm algorithm;
  config::Protocol protocol = config::Protocol::Simple;
  double time_s = 0;
};

struct TuningRow {
  config::CollectiveOp op = config::CollectiveOp::AllReduce;
  double bytes = 0;
  std::vector<TuningChoice> candidates;  // fastest first
};

/// Concrete algorithms that can run `op` over `members` (driver::can_run).
std::vector<config::CollectiveAlgorithm> candidate_algorithms(const topology::ClusterTopology& cluster,
                                                              config::CollectiveOp op, const std::vector<int>& members);

class TuningTable {
public:
  /// Simulates every candidate (algorithm x protocol the platform models for the group) of every op
  /// over `members` at sizes 1 KiB, 4 KiB, … 4 GiB.
  static TuningTable build(const topology::ClusterTopology& cluster, const std::vector<int>& members,
                           config::Fidelity fidelity, const std::vector<config::CollectiveOp>& ops);

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

/// The table for this group from the cache directory ($CLEARFOG_CACHE_DIR, else
/// $XDG_CACHE_HOME/clearfog, else ~/.cache/clearfog), built and stored if missing or if it lacks
/// one of `ops`. The cache key is a hash of everything in the platform that affects timing and of
/// the group.
TuningTable cached_tuning_table(const topology::ClusterTopology& cluster, const std::vector<int>& members,
                                config::Fidelity fidelity, const std::vector<config::CollectiveOp>& ops);

}  // namespace clearfog::driver
