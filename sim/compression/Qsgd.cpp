// QSGD (Alistarh et al., NeurIPS 2017) with b bits per element, sent through an all-reduce of the
// quantized bytes as the all-reduce-compatible variants do (the integer levels are summed): one
// pass for each tensor's norm, one to quantize and pack, one to unpack after the reduction.
#include <fmt/format.h>

#include "compression/GradCompression.hpp"
#include "core/Errors.hpp"

namespace clearfog::compression {

namespace {

/// Bytes of the fp32 norm sent with each tensor (the scale of its levels).
constexpr double kNormBytes = 4;

class Qsgd final : public GradCompressionMethod {
public:
  [[nodiscard]] std::string_view name() const override { return "qsgd"; }
  [[nodiscard]] std::string_view summary() const override {
    return "QSGD with `bits` per element (Alistarh 2017), all-reduce of n*bits/8 bytes plus a 4-byte norm per "
           "tensor; a norm pass and a pack pass to encode, an unpack pass to decode";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override { return {"bits"}; }
  [[nodiscard]] BucketCompression compress(const BucketInput& bucket, const Settings& s) const override {
    if (s.bits < 1 || s.bits > 32) throw Error(fmt::format("qsgd: bits must be in [1, 32], got {}", s.bits));
    const double n = bucket.elements(), e = dtype_bytes(bucket.dtype);
    const double packed_B = n * s.bits / 8.0;
    const double norms_B = kNormBytes * static_cast<double>(bucket.tensors.size());
    auto norm = kernels::Kernel::make_memory_bound("qsgd.norm", n * e, 2 * n, bucket.dtype);
    // Read the gradient, draw the stochastic rounding, write the packed levels.
    auto pack = kernels::Kernel::make_memory_bound("qsgd.pack", n * e + packed_B, 4 * n, bucket.dtype);
    auto unpack = kernels::Kernel::make_memory_bound("qsgd.unpack", packed_B + n * e, 2 * n, bucket.dtype);
    return {{Round{{norm, pack}, Wire::AllReduce, packed_B + norms_B}}, {unpack}};
  }
};

}  // namespace

const GradCompressionMethod& qsgd_compression() {
  static const Qsgd method;
  return method;
}

}  // namespace clearfog::compression
