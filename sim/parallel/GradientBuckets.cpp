#include "parallel/GradientBuckets.hpp"

#include <fmt/format.h>

#include "core/Errors.hpp"

namespace clearfog::parallel {

std::vector<GradientBucket> make_gradient_buckets(const std::vector<GradientTensor>& tensors, double cap_B) {
  if (!(cap_B > 0)) throw Error(fmt::format("gradient bucket size must be > 0, got {} B", cap_B));
  std::vector<GradientBucket> buckets;
  GradientBucket open;
  int last_slot = 0;
  for (const auto& t : tensors) {
    if (t.ready_slot < last_slot)
      throw Error(fmt::format("gradient {} is ready before the one listed ahead of it", t.name));
    last_slot = t.ready_slot;
    if (open.tensors == 0) open.first_tensor = t.name;
    open.bytes += t.bytes;
    open.ready_slot = t.ready_slot;
    ++open.tensors;
    if (open.bytes >= cap_B) {
      buckets.push_back(open);
      open = GradientBucket{};
    }
  }
  if (open.tensors > 0) buckets.push_back(open);
  return buckets;
}

}  // namespace clearfog::parallel
