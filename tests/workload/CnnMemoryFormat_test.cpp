// The cnn workload's memory format: channels-first convolutions pay cuDNN's NCHW <-> NHWC
// transposes, a read and a write of each operand and result per call (docs/workloads.md, "Memory
// format"); the expected bytes are that rule applied to the layer's shapes.
#include <catch2/catch.hpp>

#include "support/CnnModel.hpp"
#include "workload/types/CnnSpec.hpp"
#include "workload/types/CnnType.hpp"

using namespace clearfog;
using namespace clearfog::test;

TEST_CASE("workload::Cnn: channels-first convolutions transpose operands and result in every cuDNN call",
          "[workload][cnn]") {
  const int b = 8;
  const auto last = shipped("resnet-50.yaml");
  auto spec = last.as<workload::CnnSpec>();
  REQUIRE(spec.memory_format == workload::MemoryFormat::ChannelsLast);  // the key's default
  spec.memory_format = workload::MemoryFormat::ChannelsFirst;
  const auto first = workload::make_cnn_workload(last.name, spec);
  for (const DType dtype : {DType::fp16, DType::tf32}) {
    const double e = dtype_bytes(dtype);
    const auto nchw = describe(first, b, dtype), nhwc = describe(last, b, dtype);
    // layer1.1.conv2: 3x3, 64 -> 64 channels at 56x56.
    const workload::Block& unit = block(nchw, "layer1.1");
    const double x = b * 64.0 * 56 * 56, y = x, w = 64.0 * 64 * 9;
    INFO(dtype_name(dtype));
    CHECK(kernel(unit, "conv2.nhwc").bytes == 2 * (x + w + y) * e);              // X, W in; Y back
    CHECK(kernel(unit, "conv2.dgrad.nhwc", true).bytes == 2 * (y + w + x) * e);  // dY, W in; dX back
    const kernels::Kernel& wgrad = kernel(unit, "conv2.wgrad.nhwc", true);                 // X, dY in; dW back
    CHECK(wgrad.bytes == 2 * (x + y + w) * e);
    CHECK(wgrad.weight_gradient);
    CHECK(wgrad.model_flops == 0);
    // The stem's convolution reads the image: no data gradient, so no dgrad transposes.
    CHECK_FALSE(has_kernel(block(nchw, "stem"), "conv1.dgrad.nhwc", true));
    CHECK(has_kernel(block(nchw, "stem"), "conv1.wgrad.nhwc", true));
    // channels-last runs none; the GEMMs and model FLOPs are the same in both formats.
    CHECK_FALSE(has_kernel(block(nhwc, "layer1.1"), "conv2.nhwc", false));
    CHECK(kernel(unit, "conv2").flops == kernel(block(nhwc, "layer1.1"), "conv2").flops);
    CHECK(pass_model_flops(nchw, false) == pass_model_flops(nhwc, false));
    CHECK(pass_model_flops(nchw, true) == pass_model_flops(nhwc, true));
  }
}

