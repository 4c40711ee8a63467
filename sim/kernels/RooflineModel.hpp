#pragma once
// Roofline: time = max(flops / peak(dtype), bytes / memory bandwidth). The placeholder kernel
// model of the foundation; docs/compute-model.md gives the equations.
#include "config/AcceleratorSpec.hpp"
#include "kernels/Kernel.hpp"

namespace clearfog::kernels {

class RooflineModel final : public KernelCostModel {
public:
  explicit RooflineModel(const config::AcceleratorSpec& accelerator);
  [[nodiscard]] KernelCost cost(const Kernel& kernel) const override;
  [[nodiscard]] std::string name() const override { return "roofline"; }

private:
  config::AcceleratorSpec accelerator_;
};

}  // namespace clearfog::kernels
