#include "parallel/StepPlan.hpp"

namespace clearfog::parallel {

double StepPlan::price(const kernels::KernelCostModel& costs, const std::vector<kernels::Kernel>& pass_kernels,
                       const std::string& pass, int runs) {
  double total_s = 0;
  for (const auto& k : pass_kernels) {
    const auto cost = costs.cost(k);
    total_s += cost.time_s;
    kernels.push_back(PricedKernel{pass, k, cost, runs});
  }
  return total_s;
}

}  // namespace clearfog::parallel
