#pragma once
// Symmetry hints for the engine (program::RankSymmetry, docs/engine.md): permutations of the
// ranks under which a planner's plan may be unchanged. The engine proves each one against the plan
// and the platform's routes before using it, so a hint that does not hold only costs the check.
#include <string>
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "parallel/DeviceGrid.hpp"
#include "program/Program.hpp"

namespace clearfog::parallel {

/// Shifting the data-parallel index by one (every replica to the next), and the tensor-parallel
/// index by one, on the ranks of the grid; other ranks (reducing switches) stay in place.
std::vector<program::RankSymmetry> grid_symmetries(const DeviceGrid& grid, const config::ParallelismSpec& par,
                                                   int ranks);

/// Moving every member of `ring` to the next position.
program::RankSymmetry ring_symmetry(std::string axis, const std::vector<int>& ring, int ranks);

}  // namespace clearfog::parallel
