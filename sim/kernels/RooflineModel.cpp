#include "kernels/RooflineModel.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/Errors.hpp"

namespace clearfog::kernels {

RooflineModel::RooflineModel(const config::AcceleratorSpec& accelerator) : accelerator_(accelerator) {
  if (!(accelerator_.memory_bandwidth_Bps > 0))
    throw Error(fmt::format("RooflineModel: accelerator '{}': memory_bandwidth must be > 0, got {} B/s",
                            accelerator_.name, accelerator_.memory_bandwidth_Bps));
  for (const auto& [dtype, peak] : accelerator_.peak_flops)
    if (!(peak > 0))
      throw Error(fmt::format("RooflineModel: accelerator '{}': peak for {} must be > 0, got {} FLOP/s",
                              accelerator_.name, dtype_name(dtype), peak));
}

KernelCost RooflineModel::cost(const Kernel& kernel) const {
  if (!accelerator_.supports(kernel.dtype))
    throw Error(fmt::format("RooflineModel: accelerator '{}' has no peak for {} (kernel '{}')",
                            accelerator_.name, dtype_name(kernel.dtype), kernel.name));
  const double compute_s = kernel.flops / accelerator_.peak(kernel.dtype);
  const double memory_s = kernel.bytes / accelerator_.memory_bandwidth_Bps;
  // At the ridge point both are equal; the kernel is then called compute-bound.
  return KernelCost{std::max(compute_s, memory_s), compute_s >= memory_s ? Bound::Compute : Bound::Memory};
}

}  // namespace clearfog::kernels
