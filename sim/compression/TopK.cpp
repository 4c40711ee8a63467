// Top-k sparsification (MSTop-K in Agarwal et al.; Shi et al. 2019) with error feedback (Stich et
// al. 2018): the k = ceil(ratio*n) largest-magnitude elements of the bucket travel as values and
// int32 indices; the ranks all-gather them (p x k x (e + 4) bytes: the volume grows with the group)
// and scatter-add them into a dense gradient.
#include <fmt/format.h>

#include <cmath>

#include "compression/GradCompression.hpp"
#include "core/Errors.hpp"

namespace clearfog::compression {

namespace {

/// Memory-bound passes over the gradient to find the k-th largest magnitude: radix selection
/// takes one pass per 8-bit digit of a 32-bit key (torch.topk's radix select), MSTop-K's threshold
/// search a similar handful.
constexpr double kSelectionPasses = 4;

class TopK final : public GradCompressionMethod {
public:
  [[nodiscard]] std::string_view name() const override { return "topk"; }
  [[nodiscard]] std::string_view summary() const override {
    return "top-k sparsification with error feedback (MSTop-K): k = ceil(ratio*n) values and int32 indices, "
           "all-gather of p*k*(e+4) bytes; selection passes and packing to encode, a scatter-add to decode";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override { return {"ratio", "error_feedback"}; }
  [[nodiscard]] BucketCompression compress(const BucketInput& bucket, const Settings& s) const override {
    if (!(s.ratio > 0 && s.ratio <= 1)) throw Error(fmt::format("topk: ratio must be in (0, 1], got {}", s.ratio));
    const double n = bucket.elements(), e = dtype_bytes(bucket.dtype), p = bucket.ranks;
    const double k = std::ceil(s.ratio * n);
    const double sent_B = k * (e + kIndexBytes);
    std::vector<kernels::Kernel> encode;
    // Error feedback: add the residual (read gradient and residual, write the sum) ...
    if (s.error_feedback)
      encode.push_back(kernels::Kernel::make_memory_bound("topk.feedback", 3 * n * e, n, bucket.dtype));
    encode.push_back(kernels::Kernel::make_memory_bound("topk.select", kSelectionPasses * n * e,
                                                        kSelectionPasses * n, bucket.dtype));
    encode.push_back(kernels::Kernel::make_memory_bound("topk.pack", n * e + sent_B, n, bucket.dtype));
    // ... and keep what was not sent (read the sum, write the residual).
    if (s.error_feedback)
      encode.push_back(kernels::Kernel::make_memory_bound("topk.residual", 2 * n * e, n, bucket.dtype));
    // Zero the dense gradient, then add every rank's k values at their indices.
    auto scatter =
        kernels::Kernel::make_memory_bound("topk.scatter_add", n * e + p * sent_B + 2 * p * k * e, p * k, bucket.dtype);
    return {{Round{encode, Wire::AllGather, p * sent_B}}, {scatter}};
  }
};

}  // namespace

const GradCompressionMethod& topk_compression() {
  static const TopK method;
  return method;
}

}  // namespace clearfog::compression
