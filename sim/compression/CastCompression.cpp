// Casting the gradients to a 16-bit type before the all-reduce and back after it (PyTorch's
// fp16_compress_hook / bf16_compress_hook): one memory-bound pass each way. Casting to the type the
// gradients already have does nothing: the bucket is all-reduced as under syncSGD.
#include <fmt/format.h>

#include "compression/GradCompression.hpp"

namespace clearfog::compression {

namespace {

class CastCompression final : public GradCompressionMethod {
public:
  explicit CastCompression(DType to) : to_(to), name_(dtype_name(to)) {
    summary_ = fmt::format("cast to {} before the all-reduce and back after it: n*{} bytes on the wire, a "
                           "memory-bound pass each way (PyTorch {}_compress_hook)",
                           name_, dtype_bytes(to), name_);
  }
  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] std::string_view summary() const override { return summary_; }
  [[nodiscard]] BucketCompression compress(const BucketInput& bucket, const Settings&) const override {
    const double n = bucket.elements();
    if (bucket.dtype == to_) return {{Round{{}, Wire::AllReduce, bucket.bytes()}}, {}};
    const double from_B = dtype_bytes(bucket.dtype), to_B = dtype_bytes(to_);
    // Each pass reads one type and writes the other, one conversion per element.
    auto encode = kernels::Kernel::make_memory_bound(name_ + ".encode", n * (from_B + to_B), n, bucket.dtype);
    auto decode = kernels::Kernel::make_memory_bound(name_ + ".decode", n * (from_B + to_B), n, bucket.dtype);
    return {{Round{{encode}, Wire::AllReduce, n * to_B}}, {decode}};
  }

private:
  DType to_;
  std::string name_, summary_;
};

}  // namespace

const GradCompressionMethod& fp16_cast_compression() {
  static const CastCompression method(DType::fp16);
  return method;
}

const GradCompressionMethod& bf16_cast_compression() {
  static const CastCompression method(DType::bf16);
  return method;
}

}  // namespace clearfog::compression
