// Sub-8-bit GEMMs: the guard-bit arithmetic of ULPPACK's two packing schemes against the local
// accumulation counts of the FullPack NEON port, the published W3A3 speedups on a Cortex-A72, and
// the native types matrix units use instead.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"
#include "kernels/LowPrecisionGemmModel.hpp"
#include "kernels/LowPrecisionPacking.hpp"

using namespace clearfog;
using namespace clearfog::kernels;

namespace {

config::AcceleratorSpec shipped_accelerator(const std::string& file) {
  return config::load_accelerator(std::filesystem::path(CLEARFOG_SOURCE_DIR) / "platforms/accelerators" / file);
}

long long max_product(int w, int a) { return ((1LL << w) - 1) * ((1LL << a) - 1); }

// The counts the bit arithmetic gives, written out: the low field (one product per multiply) must
// not carry into the wanted field at bit s, and the wanted field (two products per multiply) must
// not overflow its width.
long long dense_count(int w, int a) {
  // s = 8 in a 16-bit lane, products kept to 16 bits: the wanted field is bits 8..15.
  return std::min(255 / max_product(w, a), 255 / (2 * max_product(w, a)));
}
long long headroom_count(int w, int a) {
  // s = 16 - max(w, a), 32-bit products: the wanted field is bits s..2s-1.
  const long long field = (1LL << (16 - std::max(w, a))) - 1;
  return std::min(field / max_product(w, a), field / (2 * max_product(w, a)));
}

// FullPack port (shkatebi97/FullPack, kernels/ULPPACK/ULPPACK.h): iterations before an extraction,
// [weight bits - 1][activation bits - 1]; 0 = unsupported. shared/reference/ulppack.md quotes a part.
constexpr int kPortDense[7][7] = {{8, 8, 8, 8, 4, 2, 1}, {8, 8, 4, 2, 1, 0, 0}, {8, 4, 2, 1, 0, 0, 0},
                                  {8, 2, 1, 0, 0, 0, 0}, {4, 1, 0, 0, 0, 0, 0}, {2, 0, 0, 0, 0, 0, 0},
                                  {1, 0, 0, 0, 0, 0, 0}};
constexpr int kPortHeadroom[7][7] = {{8, 8, 8, 8, 8, 8, 2}, {8, 8, 8, 8, 8, 2, 0}, {8, 8, 8, 8, 4, 1, 0},
                                     {8, 8, 8, 8, 2, 0, 0}, {8, 8, 4, 2, 1, 0, 0}, {8, 2, 1, 0, 0, 0, 0},
                                     {2, 0, 0, 0, 0, 0, 0}};

}  // namespace

TEST_CASE("kernels::LowPrecision: parses wXaY with 1 to 7 bits", "[kernels]") {
  CHECK(parse_bit_widths("w3a3") == BitWidths{3, 3});
  CHECK(parse_bit_widths("w1a7") == BitWidths{1, 7});
  CHECK(bit_widths_name(BitWidths{2, 4}) == "w2a4");
  for (const char* bad : {"w8a8", "w0a3", "w3", "x3a3", "w3a", "w3a3x", "int4"}) {
    INFO(bad);
    CHECK_FALSE(parse_bit_widths(bad).has_value());
  }
}

TEST_CASE("kernels::LowPrecision: local accumulation counts from the guard bits", "[kernels]") {
  SECTION("the counts shared/reference/ulppack.md lists") {
    struct Row {
      int w, a;
      PackingScheme scheme;
      long long derived;  // closed form
      int port;           // ulppack.md
    };
    const Row rows[] = {
        {1, 1, PackingScheme::Dense, 127, 8},   {2, 2, PackingScheme::Dense, 14, 8},
        {3, 3, PackingScheme::Dense, 2, 2},     {1, 4, PackingScheme::Dense, 8, 8},
        {2, 4, PackingScheme::Dense, 2, 2},     {1, 7, PackingScheme::Dense, 1, 1},
        {4, 4, PackingScheme::Dense, 0, 0},     {3, 3, PackingScheme::Headroom, 83, 8},
        {4, 4, PackingScheme::Headroom, 9, 8},  {5, 5, PackingScheme::Headroom, 1, 1},
        {1, 7, PackingScheme::Headroom, 2, 2},
    };
    for (const auto& r : rows) {
      INFO("w" << r.w << "a" << r.a << " " << packing_scheme_name(r.scheme));
      const auto plan = plan_packing(BitWidths{r.w, r.a}, r.scheme);
      CHECK(plan.local_accumulations == r.derived);
      CHECK(plan.local_accumulations ==
            (r.scheme == PackingScheme::Dense ? dense_count(r.w, r.a) : headroom_count(r.w, r.a)));
      // The port keeps kernels for 1, 2, 4 and 8 iterations: the largest not above the count.
      CHECK(plan.port_iterations() == r.port);
    }
  }
  SECTION("every width pair of the port's tables") {
    for (int w = 1; w <= kMaxLowPrecisionBits; ++w)
      for (int a = 1; a <= kMaxLowPrecisionBits; ++a) {
        INFO("w" << w << "a" << a);
        CHECK(plan_packing(BitWidths{w, a}, PackingScheme::Dense).port_iterations() == kPortDense[w - 1][a - 1]);
        CHECK(plan_packing(BitWidths{w, a}, PackingScheme::Headroom).port_iterations() ==
              kPortHeadroom[w - 1][a - 1]);
      }
  }
  SECTION("field positions") {
    const auto dense = plan_packing(BitWidths{3, 3}, PackingScheme::Dense);
    CHECK(dense.field_shift == 8);
    CHECK(dense.products_per_multiply == 2);
    const auto headroom = plan_packing(BitWidths{3, 5}, PackingScheme::Headroom);
    CHECK(headroom.field_shift == 16 - 5);  // the port's extraction shift 16 - max(Wb, Ab)
    CHECK(headroom.product_lane_bits == 32);
  }
}

TEST_CASE("kernels::LowPrecision: W3A3 512^3 on a Cortex-A72 reproduces ULPPACK's speedups", "[kernels][validation]") {
  // Won et al., MLSys 2022 (shared/reference/ulppack.md): 2.1x over gemmlowp, 1.8x over QNNPACK,
  // 2.7x over bit-serial. Within 20 %.
  const LowPrecisionGemmModel model(shipped_accelerator("cortex-a72.yaml"));
  const auto est = model.estimate(GemmShape{512, 512, 512, 1}, BitWidths{3, 3});
  const auto& best = est.chosen();
  CHECK((best.method == LowPrecisionMethod::UlppackDense || best.method == LowPrecisionMethod::UlppackHeadroom));
  const auto speedup = [&](LowPrecisionMethod baseline) {
    const auto* b = est.find(baseline);
    REQUIRE(b != nullptr);
    return b->time_s / best.time_s;
  };
  constexpr double kTolerance = 0.20;
  CHECK(speedup(LowPrecisionMethod::Int8Gemmlowp) == Approx(2.1).epsilon(kTolerance));
  CHECK(speedup(LowPrecisionMethod::Int8Qnnpack) == Approx(1.8).epsilon(kTolerance));
  CHECK(speedup(LowPrecisionMethod::BitSerial) == Approx(2.7).epsilon(kTolerance));
  // The datapath the int8 peak implies: 96 GOP/s / 2 / 4 cores / 1.5 GHz = 8 products of 8 bits.
  CHECK(model.simd_datapath_bits() == Approx(64));
}

TEST_CASE("kernels::LowPrecision: W4A4 has no dense packing — wider types fall back to int8 kernels",
          "[kernels]") {
  const LowPrecisionGemmModel model(shipped_accelerator("cortex-a72.yaml"));
  const auto w4 = model.estimate(GemmShape{512, 512, 512, 1}, BitWidths{4, 4});
  CHECK(w4.find(LowPrecisionMethod::UlppackDense) == nullptr);
  CHECK(w4.chosen().method == LowPrecisionMethod::UlppackHeadroom);
  const auto w7 = model.estimate(GemmShape{512, 512, 512, 1}, BitWidths{7, 7});
  CHECK(w7.find(LowPrecisionMethod::UlppackHeadroom) == nullptr);
  CHECK(w7.chosen().method == LowPrecisionMethod::Int8Qnnpack);
}

TEST_CASE("kernels::LowPrecision: matrix units use their narrowest exact native type", "[kernels]") {
  const GemmShape shape{4096, 4096, 4096, 1};
  SECTION("A100: int4 tensor cores for w3a3, int8 for w5a5") {
    const LowPrecisionGemmModel model(shipped_accelerator("a100-sxm4-80gb.yaml"));
    CHECK(model.estimate(shape, BitWidths{3, 3}).chosen().method == LowPrecisionMethod::NativeInt4);
    CHECK(model.estimate(shape, BitWidths{5, 5}).chosen().method == LowPrecisionMethod::NativeInt8);
  }
  SECTION("H100 (no int4): fp8 for w4a4, int8 for w5a5") {
    const LowPrecisionGemmModel model(shipped_accelerator("h100-sxm5.yaml"));
    const auto w4 = model.estimate(shape, BitWidths{4, 4});
    CHECK(w4.find(LowPrecisionMethod::NativeInt4) == nullptr);
    CHECK(w4.chosen().method == LowPrecisionMethod::NativeFp8);
    CHECK(model.estimate(shape, BitWidths{5, 5}).chosen().method == LowPrecisionMethod::NativeInt8);
  }
  SECTION("V100 (fp16 only): fp16 holds 7-bit integers exactly") {
    const LowPrecisionGemmModel model(shipped_accelerator("v100-sxm2.yaml"));
    CHECK(model.estimate(shape, BitWidths{7, 7}).chosen().method == LowPrecisionMethod::NativeFp16);
  }
  SECTION("TPU v4 (bf16 only)") {
    const LowPrecisionGemmModel model(shipped_accelerator("tpu-v4.yaml"));
    CHECK(model.estimate(shape, BitWidths{3, 3}).chosen().method == LowPrecisionMethod::NativeBf16);
  }
}
