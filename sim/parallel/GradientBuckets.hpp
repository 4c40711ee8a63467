#pragma once
// PyTorch DDP's gradient buckets (Li et al., "PyTorch Distributed", VLDB 2020): parameters are
// assigned to buckets in the reverse order of their registration, which is roughly the order in
// which backward produces their gradients; a bucket is closed as soon as it holds at least
// `cap` bytes, and its all-reduce starts once every gradient in it is ready.
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

/// Packs tensors into buckets of at least `cap_B` bytes (the last one may be smaller); a tensor
/// is never split. Throws Error if `cap_B` <= 0 or ready slots decrease.
std::vector<GradientBucket> make_gradient_buckets(const std::vector<GradientTensor>& tensors, double cap_B);

}  // namespace clearfog::parallel
