// No compression: optimized synchronous SGD, each bucket all-reduced as it is (PyTorch DDP).
#include "compression/GradCompression.hpp"

namespace clearfog::compression {

namespace {

class NoCompression final : public GradCompressionMethod {
public:
  [[nodiscard]] std::string_view name() const override { return "none"; }
  [[nodiscard]] std::string_view summary() const override {
    return "syncSGD: every bucket all-reduced uncompressed, n*e bytes (PyTorch DDP)";
  }
  [[nodiscard]] BucketCompression compress(const BucketInput& bucket, const Settings&) const override {
    return {{Round{{}, Wire::AllReduce, bucket.bytes()}}, {}};
  }
};

}  // namespace

const GradCompressionMethod& no_compression() {
  static const NoCompression method;
  return method;
}

}  // namespace clearfog::compression
