#include "parallel/GradientBuckets.hpp"

#include <fmt/format.h>

#include <utility>

#include "core/Errors.hpp"

namespace clearfog::parallel {

GradientBucketPacker::GradientBucketPacker(double cap_B) : cap_B_(cap_B) {
  if (!(cap_B > 0)) throw Error(fmt::format("gradient bucket size must be > 0, got {} B", cap_B));
}

std::optional<GradientBucket> GradientBucketPacker::add(const GradientTensor& t) {
  if (t.ready_slot < last_slot_)
    throw Error(fmt::format("gradient {} is ready before the one listed ahead of it", t.name));
  last_slot_ = t.ready_slot;
  if (open_.tensors == 0) open_.first_tensor = t.name;
  open_.bytes += t.bytes;
  open_.ready_slot = t.ready_slot;
  ++open_.tensors;
  if (open_.bytes < cap_B_) return std::nullopt;
  return std::exchange(open_, GradientBucket{});
}

std::optional<GradientBucket> GradientBucketPacker::finish() {
  if (open_.tensors == 0) return std::nullopt;
  return std::exchange(open_, GradientBucket{});
}

std::vector<GradientBucket> make_gradient_buckets(const std::vector<GradientTensor>& tensors, double cap_B) {
  GradientBucketPacker packer(cap_B);
  std::vector<GradientBucket> buckets;
  for (const auto& t : tensors)
    if (auto closed = packer.add(t)) buckets.push_back(*closed);
  if (auto last = packer.finish()) buckets.push_back(*last);
  return buckets;
}

}  // namespace clearfog::parallel
