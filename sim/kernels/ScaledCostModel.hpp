#pragma once
// Another cost model's prices times a factor: a software stack whose kernels run slower (or
// faster) than the one the model was calibrated on (config::FrameworkProfile::kernel_time_factor).
#include <string>

#include "kernels/Kernel.hpp"

namespace clearfog::kernels {

class ScaledCostModel final : public KernelCostModel {
public:
  /// Throws clearfog::Error unless factor is finite and > 0.
  ScaledCostModel(const KernelCostModel& base, double factor);
  [[nodiscard]] KernelCost cost(const Kernel& kernel) const override;
  [[nodiscard]] std::string name() const override;
  [[nodiscard]] double factor() const { return factor_; }

private:
  const KernelCostModel& base_;
  double factor_;
};

}  // namespace clearfog::kernels
