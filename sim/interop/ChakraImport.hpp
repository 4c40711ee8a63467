#pragma once
// A scenario whose workload is Chakra execution traces (`workload: {chakra: DIR}`, docs/interop.md):
// the step's per-device programs read from DIR/et.<rank>.et instead of planned from a model.
#include <filesystem>
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "interop/ChakraGraph.hpp"
#include "kernels/Kernel.hpp"
#include "parallel/GroupCollectives.hpp"
#include "parallel/StepPlan.hpp"

namespace clearfog::interop {

/// Every rank's trace of `dir`, one per device: checked (rank files, framing, node types,
/// dependencies) and ordered. Throws ChakraImportError naming the file and the node.
std::vector<ChakraGraph> read_chakra_graphs(const std::filesystem::path& dir, int devices);

/// The step of `scenario` (workload type chakra): compute nodes keep their traced durations, or are
/// priced by `costs` when the workload says `reprice`; collectives are requested from
/// `collectives` (the platform's algorithm), messages become transfers. The step's figures that
/// need a model (parameters, FLOPs unless every compute node gives num_ops, memory) are marked
/// unknown. Throws ChakraImportError.
parallel::StepPlan import_chakra(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
                                 const parallel::GroupCollectives& collectives);

}  // namespace clearfog::interop
