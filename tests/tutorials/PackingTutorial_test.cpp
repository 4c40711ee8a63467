// The answers of docs/tutorials/05-packing.md: which sub-8-bit kernel wins at each bit width on a
// Cortex-A72, predicted in the test from the instruction mixes' bits per multiply-accumulate and
// ULPPACK's guard-bit arithmetic (docs/compute-model.md, "Low precision"), then checked against what
// the kernel model picks and how long it takes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "config/ConfigLoader.hpp"
#include "kernels/LowPrecisionGemmModel.hpp"

using namespace clearfog;
using kernels::LowPrecisionMethod;

namespace {

config::AcceleratorSpec accelerator(const std::string& file) {
  return config::load_accelerator(std::filesystem::path(CLEARFOG_SOURCE_DIR) / "platforms/accelerators" / file);
}

/// Bits of the multiply datapath each method spends per useful multiply-accumulate at wXaX, or
/// nothing where the method cannot run. L: exact local accumulations, capped at 8 (the port's
/// deepest kernel).
std::map<LowPrecisionMethod, double> bits_per_mac(int x) {
  const double p = ((1 << x) - 1.0) * ((1 << x) - 1.0);  // the largest product
  const auto capped = [](double l) { return std::min(std::floor(l), 8.0); };
  std::map<LowPrecisionMethod, double> bits{{LowPrecisionMethod::Int8Gemmlowp, 24},
                                            {LowPrecisionMethod::Int8Qnnpack, 20},
                                            {LowPrecisionMethod::BitSerial, x * x * (3 + 1.0 / 31)}};
  const double dense_l = capped(255 / (2 * p));  // two products in a 16-bit lane, fields 8 bits apart
  if (dense_l >= 1) bits[LowPrecisionMethod::UlppackDense] = 8 + 8 / dense_l;
  const int s = 16 - x;  // headroom: operands pre-shifted within their byte
  const double headroom_l = capped((std::pow(2.0, s) - 1) / (2 * p));
  if (headroom_l >= 1) bits[LowPrecisionMethod::UlppackHeadroom] = 8 + 32 / headroom_l;
  return bits;
}

}  // namespace

TEST_CASE("tutorial 5: the kernel with the fewest datapath bits per MAC wins at every width on a Cortex-A72",
          "[tutorials]") {
  const auto a72 = accelerator("cortex-a72.yaml");
  const kernels::LowPrecisionGemmModel model(a72);
  const kernels::GemmShape shape{512, 512, 512, 1};
  const double macs = 512.0 * 512 * 512;
  // The int8 peak is one 8-bit product per 8 datapath bits, 2 ops each: bits per second = 4 peak.
  const double datapath_bits_per_s = 4 * a72.peak(DType::int8);
  for (int x = 1; x <= 7; ++x) {
    INFO("w" << x << "a" << x);
    const auto bits = bits_per_mac(x);
    const auto fewest = std::min_element(bits.begin(), bits.end(), [](const auto& a, const auto& b) {
      return a.second < b.second;
    })->second;
    const auto est = model.estimate(shape, kernels::BitWidths{x, x});
    REQUIRE(bits.count(est.chosen().method) == 1);
    CHECK(bits.at(est.chosen().method) == Approx(fewest));
    // Compute-bound at 512^3: the datapath time, plus packing the operands (a few percent).
    const double compute_s = macs * fewest / datapath_bits_per_s;
    CHECK(est.chosen().time_s >= compute_s * (1 - 1e-9));
    CHECK(est.chosen().time_s <= compute_s * 1.08);
  }
  // The headline: W3A3 packs two products per 16-bit multiply, 12 bits per MAC against
  // QNNPACK's 20 — 1.67x.
  const auto w3 = model.estimate(shape, kernels::BitWidths{3, 3});
  CHECK(w3.find(LowPrecisionMethod::Int8Qnnpack)->time_s / w3.chosen().time_s == Approx(20.0 / 12).epsilon(0.03));
}

TEST_CASE("tutorial 5: a matrix unit runs W3A3 on its int4 path, at twice its int8 rate", "[tutorials]") {
  // The A100's tensor cores multiply int4 at twice the int8 peak; no packing helps a unit that
  // sums a whole k-chunk inside. At 8192^3 both are compute-bound.
  const auto a100 = accelerator("a100-sxm4-80gb.yaml");
  const kernels::LowPrecisionGemmModel model(a100);
  const kernels::GemmShape shape{8192, 8192, 8192, 1};
  const auto w3 = model.estimate(shape, kernels::BitWidths{3, 3});
  const auto w8 = model.estimate(shape, kernels::BitWidths{8, 8});
  CHECK(w3.chosen().method == LowPrecisionMethod::NativeInt4);
  CHECK(w8.chosen().time_s / w3.chosen().time_s ==
        Approx(a100.int4_peak_ops / a100.peak(DType::int8)).epsilon(0.05));
}
