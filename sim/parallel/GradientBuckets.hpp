#pragma once
// PyTorch DDP's gradient buckets (Li et al., "PyTorch Distributed", VLDB 2020): parameters are
// assigned to buckets in the reverse order of their registration, which is roughly the order in
// which backward produces their gradients; a bucket is closed as soon as it holds at least
// `cap` bytes, and its all-reduce starts once every gradient in it is ready.
#include <optional>
#include <string>
#include <vector>

namespace clearfog::parallel {

/// One parameter tensor's gradient, listed in the order backward makes gradients ready.
struct GradientTensor {
  std::string name;
  double bytes = 0;
  int ready_slot = 0;  // index of the backward op after which the gradient is ready (non-decreasing)
};

struct GradientBucket {
  double bytes = 0;
  int ready_slot = 0;        // the backward op after which the whole bucket is ready
  std::size_t tensors = 0;   // how many tensors it holds
  std::string first_tensor;  // for reports
};

/// The same rule one tensor at a time, for a planner that acts as soon as a bucket is complete
/// (gradient compression encodes each bucket during the backward pass).
class GradientBucketPacker {
public:
  /// Throws Error if `cap_B` <= 0.
  explicit GradientBucketPacker(double cap_B);
  /// Adds the next tensor; returns the bucket it completes, if it does. Throws Error if its ready
  /// slot is before the previous tensor's.
  std::optional<GradientBucket> add(const GradientTensor& tensor);
  /// The last, smaller bucket, if tensors are left over; the packer is empty afterwards.
  std::optional<GradientBucket> finish();

private:
  double cap_B_;
  GradientBucket open_;
  int last_slot_ = 0;
};

/// Packs tensors into buckets of at least `cap_B` bytes (the last one may be smaller); a tensor
/// is never split. Throws Error if `cap_B` <= 0 or ready slots decrease.
std::vector<GradientBucket> make_gradient_buckets(const std::vector<GradientTensor>& tensors, double cap_B);

}  // namespace clearfog::parallel
