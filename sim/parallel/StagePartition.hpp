#pragma once
// Which blocks of a model each pipeline model chunk holds: parallelism.layer_split, an even split
// of the pipeline units (Megatron-LM), or the contiguous split with the least maximal chunk time
// (balanced). Blocks that are not units of their own (a transformer's embedding and head) go with
// the first unit after them or the last before them. Pure.
#include <cstddef>
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "config/WorkloadTypeSchema.hpp"
#include "workload/ModelDescription.hpp"

namespace clearfog::parallel {

/// Blocks [begin, end) of the description, in model order.
struct BlockRange {
  std::size_t begin = 0, end = 0;
  [[nodiscard]] std::size_t size() const { return end - begin; }
};

/// The pipeline units' split without the description: layer_split when given, else `units`
/// evenly or balanced by `unit_cost_s` (one entry per unit). Throws clearfog::Error when the
/// split cannot be made (the scenario checks reject these first).
std::vector<int> split_units(int units, int chunks, config::StagePartition how, const std::vector<int>& layer_split,
                             const std::vector<double>& unit_cost_s);

/// The blocks of each of `chunks` model chunks (pp x virtual stages, model order). `block_cost_s`
/// gives each block's forward + backward time, for the balanced split.
std::vector<BlockRange> partition_blocks(const workload::ModelDescription& model, int chunks,
                                         config::StagePartition how, const std::vector<int>& layer_split,
                                         const std::vector<double>& block_cost_s);

/// The partition a scenario asks for: parallelism.partition, with auto resolved by the workload
/// type.
config::StagePartition partition_of(const config::ScenarioSpec& scenario);

}  // namespace clearfog::parallel
