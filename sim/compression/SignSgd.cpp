// signSGD with majority vote (Bernstein et al., ICLR 2019), as Agarwal et al. ran it: each rank
// packs the signs of its gradient into bits, the ranks all-gather them (p x n/8 bytes: the volume
// grows with the group) and each one takes the majority of the p votes per element.
#include <cmath>

#include "compression/GradCompression.hpp"

namespace clearfog::compression {

namespace {

class SignSgd final : public GradCompressionMethod {
public:
  [[nodiscard]] std::string_view name() const override { return "signsgd"; }
  [[nodiscard]] std::string_view summary() const override {
    return "signSGD with majority vote (Bernstein 2019): 1 bit per element, all-gather of p*n/8 bytes; a pack "
           "pass to encode, a vote over the p sign vectors to decode";
  }
  [[nodiscard]] BucketCompression compress(const BucketInput& bucket, const Settings&) const override {
    const double n = bucket.elements(), e = dtype_bytes(bucket.dtype), p = bucket.ranks;
    const double signs_B = std::ceil(n / 8.0);
    auto pack = kernels::Kernel::make_memory_bound("signsgd.pack", n * e + signs_B, n, bucket.dtype);
    // Read every rank's bits, count the votes, write the sign of the majority.
    auto vote = kernels::Kernel::make_memory_bound("signsgd.vote", p * signs_B + n * e, p * n, bucket.dtype);
    return {{Round{{pack}, Wire::AllGather, p * signs_B}}, {vote}};
  }
};

}  // namespace

const GradCompressionMethod& signsgd_compression() {
  static const SignSgd method;
  return method;
}

}  // namespace clearfog::compression
