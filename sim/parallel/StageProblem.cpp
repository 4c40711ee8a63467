#include "parallel/StageProblem.hpp"

#include "config/FrameworkRegistry.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "parallel/BlockCosts.hpp"
#include "workload/WorkloadType.hpp"

namespace clearfog::parallel {

StageSearchProblem stage_problem(const config::WorkloadSpec& workload, const std::vector<DeviceKind>& kinds,
                                 int stages, int micro_batch, DType precision, double link_Bps) {
  workload::DescribeOptions describe;
  describe.micro_batch = micro_batch;
  describe.precision = precision;
  describe.fusions = config::framework_profile(config::kDefaultFramework).fusions;
  const auto model = workload::workload_type(workload.type).describe(workload, describe);
  StageSearchProblem p;
  p.stages = stages;
  for (const auto& kind : kinds) {
    const kernels::BlockedGemmModel costs(kind.accelerator);
    p.layer_s.push_back(BlockCosts(model, costs).block_times());
    p.devices.push_back(kind.count);
  }
  for (const auto& block : model.blocks) p.transfer_s.push_back(2 * block.output_B / link_Bps);
  return p;
}

}  // namespace clearfog::parallel
