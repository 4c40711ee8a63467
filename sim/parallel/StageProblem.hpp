#pragma once
// The stage search's problem for a workload on a set of accelerator kinds: every block of the
// model priced on every kind (forward plus backward at the micro-batch, the blocked-GEMM model),
// and every block boundary's activation sent forward and its gradient back over the link between
// stages. docs/heterogeneous-pipelines.md.
#include <vector>

#include "config/AcceleratorSpec.hpp"
#include "config/WorkloadSpec.hpp"
#include "core/DType.hpp"
#include "parallel/StageSearch.hpp"

namespace clearfog::parallel {

struct DeviceKind {
  config::AcceleratorSpec accelerator;
  int count = 0;
};

StageSearchProblem stage_problem(const config::WorkloadSpec& workload, const std::vector<DeviceKind>& kinds,
                                 int stages, int micro_batch, DType precision, double link_Bps);

}  // namespace clearfog::parallel
