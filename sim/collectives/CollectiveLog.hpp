#pragma once
// Which algorithm, protocol and channels each collective of a plan used: a side table beside the
// plan (program::Op stays small), filled by append_collective for every request that carries a log.
// Reports read it (`clearfog run --ops`, collectives.csv, trace args).
#include <deque>
#include <string>
#include <vector>

#include "config/CollectiveSpec.hpp"
#include "program/Program.hpp"

namespace clearfog::collectives {

/// The ops one endpoint (a plan rank) ran for a collective: indices [first, end) of its program.
struct OpRange {
  int rank = 0;
  program::OpIndex first = 0;
  program::OpIndex end = 0;
};

struct CollectiveRecord {
  std::string name;              // the request's name: its ops are "<name>" or "<name>.s<round>"
  config::CollectiveOp op = config::CollectiveOp::AllReduce;
  int members = 0;
  double bytes = 0;              // payload, nccl-tests convention (not the protocol's wire bytes)
  config::CollectiveAlgorithm algorithm;
  config::Protocol protocol = config::Protocol::Simple;
  int channels = 1;
  std::vector<OpRange> ops;      // members, then the reducing switch if any
  /// The bytes the schedule was planned with: the payload scaled by the protocol's and the
  /// platform's efficiency (its transfers carry time-equivalent bytes); payload / this turns them
  /// back into data.
  double planned_bytes = 0;
  /// all_to_all-v only: bytes member i sends member j, i and j in the order of `ops` (the request's
  /// matrix in ring order); empty: even (`bytes / members` to each).
  std::vector<std::vector<double>> matrix;
  /// all_to_all, hierarchical: the request's network_share (DeepEP's de-duplication; 1: none).
  double network_share = 1;
};

class CollectiveLog {
public:
  void add(CollectiveRecord record) { records_.push_back(std::move(record)); }
  /// In the order they were planned. A deque: a large plan logs over a million collectives, and a
  /// vector's doubling would leave up to as much again unused at the peak of the run's memory.
  [[nodiscard]] const std::deque<CollectiveRecord>& records() const { return records_; }

private:
  std::deque<CollectiveRecord> records_;
};

}  // namespace clearfog::collectives
