#pragma once
// When each rank's compute stream computes, to tell how much of a communication interval is
// exposed (the compute stream idle) and how much runs behind compute (docs/outputs.md).
#include <map>
#include <utility>
#include <vector>

#include "engine/SimulationResult.hpp"
#include "program/Program.hpp"

namespace clearfog::report {

/// The compute-stream busy intervals of each rank, built on first use.
class ComputeBusy {
public:
  ComputeBusy(const program::Plan& plan, const engine::SimulationResult& result) : plan_(plan), result_(result) {}

  /// The part of [start, end) in which the rank's compute stream runs no compute op.
  double exposed(int rank, double start, double end);

private:
  [[nodiscard]] std::vector<std::pair<double, double>> intervals(int rank) const;

  const program::Plan& plan_;
  const engine::SimulationResult& result_;
  std::map<int, std::vector<std::pair<double, double>>> busy_;
};

}  // namespace clearfog::report
