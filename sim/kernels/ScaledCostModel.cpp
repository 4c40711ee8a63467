#include "kernels/ScaledCostModel.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/Errors.hpp"

namespace clearfog::kernels {

ScaledCostModel::ScaledCostModel(const KernelCostModel& base, double factor) : base_(base), factor_(factor) {
  if (!(std::isfinite(factor) && factor > 0))
    throw Error(fmt::format("ScaledCostModel: factor must be finite and > 0, got {}", factor));
}

KernelCost ScaledCostModel::cost(const Kernel& kernel) const {
  KernelCost c = base_.cost(kernel);
  c.time_s *= factor_;  // x 1.0 leaves every price as it was, bit for bit
  return c;
}

std::string ScaledCostModel::name() const {
  return factor_ == 1.0 ? base_.name() : fmt::format("{} x {}", base_.name(), factor_);
}

}  // namespace clearfog::kernels
