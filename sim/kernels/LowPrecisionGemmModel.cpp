#include "kernels/LowPrecisionGemmModel.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/Errors.hpp"

// Equations and sources: docs/compute-model.md, "Low precision".
namespace clearfog::kernels {

namespace {

// --- Native types: integers they hold exactly (unsigned, or signed with one more bit) -----------
constexpr int kInt4Bits = 4;
constexpr int kFp8E4M3Bits = 4;   // 3 mantissa bits + the implicit one: every integer up to 16
constexpr int kInt8Bits = 8;
constexpr int kFp16Bits = 11;     // 10 + 1 significant bits
constexpr int kBf16Bits = 8;      // 7 + 1
constexpr double kInt4Bytes = 0.5;

// --- SIMD instruction mixes, in bits of lanes processed per useful multiply-accumulate ----------
// Every op is charged (lanes x lane bits) / datapath bits cycles, one op after another (see docs).
constexpr double kBitsPerByte = 8;
// gemmlowp-like: UMULL 8x8->16 (8 bits of operand lanes), then UADALP folds each 16-bit product
// into 32 bits (two full-range 8-bit products overflow 16 bits, so after every product).
constexpr double kGemmlowpBitsPerMac = 8 + 16;
// QNNPACK-like: SMLAL 16x16->32 (16 bits of operand lanes); every loaded operand is widened to 16
// bits once (USUBL, zero point) and reused across an 8x8 register tile.
constexpr double kQnnpackMicroTile = 8;
constexpr double kQnnpackBitsPerMac = 16 + 16 * (1 / kQnnpackMicroTile + 1 / kQnnpackMicroTile);
constexpr double kDenseExtractOps = 1;     // USRA: shift right by 8 and accumulate (16-bit lanes)
constexpr double kHeadroomExtractOps = 2;  // AND with the field mask, ADD (32-bit lanes)
constexpr double kPackOpsPerElement = 2;   // shift + insert per operand element (8-bit lanes)
// Bit-serial: per pair of bit planes, AND, CNT (popcount per byte) and ADD into 8-bit counters;
// a counter gains at most 8 per CNT, so it is widened (UADALP) every floor(255 / 8) = 31 adds.
constexpr double kBitSerialOpsPerPlanePair = 3;
constexpr double kPopcountAddsBeforeWiden = 31;
constexpr double kPlaneOpsPerElementBit = 2;  // shift + AND to extract one bit plane (8-bit lanes)
constexpr double kCombineOpsPerPlanePair = 2; // shift + add of a 32-bit plane sum into the output
constexpr double kAccumulatorBits = 32;

double macs_of(const GemmShape& s) {
  return static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) *
         static_cast<double>(s.batch);
}

}  // namespace

std::optional<BitWidths> integer_bit_widths(std::string_view dtype) {
  if (dtype == "int8") return BitWidths{kInt8Bits, kInt8Bits};
  if (dtype == "int4") return BitWidths{kInt4Bits, kInt4Bits};
  return std::nullopt;
}

std::string_view low_precision_method_name(LowPrecisionMethod method) {
  switch (method) {
    case LowPrecisionMethod::NativeInt4: return "native int4";
    case LowPrecisionMethod::NativeFp8: return "native fp8 (e4m3, exact for 4-bit integers)";
    case LowPrecisionMethod::NativeInt8: return "native int8";
    case LowPrecisionMethod::NativeFp16: return "native fp16 (exact for integers up to 11 bits)";
    case LowPrecisionMethod::NativeBf16: return "native bf16 (exact for integers up to 8 bits)";
    case LowPrecisionMethod::Int8Gemmlowp: return "int8, gemmlowp-like";
    case LowPrecisionMethod::Int8Qnnpack: return "int8, QNNPACK-like";
    case LowPrecisionMethod::UlppackDense: return "ULPPACK, dense scheme";
    case LowPrecisionMethod::UlppackHeadroom: return "ULPPACK, headroom scheme";
    case LowPrecisionMethod::BitSerial: return "bit-serial";
  }
  return "?";
}

const LowPrecisionCandidate* LowPrecisionEstimate::find(LowPrecisionMethod method) const {
  for (const auto& c : candidates)
    if (c.method == method) return &c;
  return nullptr;
}

LowPrecisionGemmModel::LowPrecisionGemmModel(const config::AcceleratorSpec& accelerator) : gemm_(accelerator) {}

double LowPrecisionGemmModel::simd_datapath_bits() const {
  const auto& acc = gemm_.accelerator();
  if (acc.simd_width_bits <= 0 || !acc.supports(DType::int8) || !(acc.clock_Hz > 0)) return 0;
  const double macs_per_cycle = acc.peak(DType::int8) / 2 / acc.compute_units / acc.clock_Hz;
  return macs_per_cycle * kBitsPerByte;
}

std::vector<LowPrecisionCandidate> LowPrecisionGemmModel::native(const GemmShape& shape, BitWidths bits) const {
  const auto& acc = gemm_.accelerator();
  const int widest = std::max(bits.weight, bits.activation);
  std::vector<LowPrecisionCandidate> out;
  const auto add = [&](LowPrecisionMethod method, const GemmArithmetic& arithmetic) {
    const auto e = gemm_.estimate(shape, arithmetic);
    out.push_back(LowPrecisionCandidate{method, e.time_s, e.flops_per_s, 0, std::nullopt, e});
  };
  if (acc.int4_peak_ops > 0 && widest <= kInt4Bits)
    add(LowPrecisionMethod::NativeInt4, GemmArithmetic{"int4", acc.int4_peak_ops, kInt4Bytes, acc.gemm_efficiency});
  if (acc.supports(DType::fp8) && widest <= kFp8E4M3Bits)
    add(LowPrecisionMethod::NativeFp8, gemm_.arithmetic_of(DType::fp8));
  if (acc.supports(DType::int8) && widest <= kInt8Bits)
    add(LowPrecisionMethod::NativeInt8, gemm_.arithmetic_of(DType::int8));
  if (acc.supports(DType::fp16) && widest <= kFp16Bits)
    add(LowPrecisionMethod::NativeFp16, gemm_.arithmetic_of(DType::fp16));
  if (acc.supports(DType::bf16) && widest <= kBf16Bits)
    add(LowPrecisionMethod::NativeBf16, gemm_.arithmetic_of(DType::bf16));
  return out;
}

std::vector<LowPrecisionCandidate> LowPrecisionGemmModel::simd(const GemmShape& shape, BitWidths bits) const {
  const auto& acc = gemm_.accelerator();
  const double datapath = simd_datapath_bits();
  const double macs = macs_of(shape);
  const double batch = static_cast<double>(shape.batch);
  const double a_elements = static_cast<double>(shape.m) * static_cast<double>(shape.k) * batch;
  const double b_elements = static_cast<double>(shape.k) * static_cast<double>(shape.n) * batch;
  const double outputs = static_cast<double>(shape.m) * static_cast<double>(shape.n) * batch;
  // Operands stored one per byte, int32 results: the DRAM side, overlapped with the arithmetic.
  const double memory_s = (a_elements + b_elements + outputs * kAccumulatorBits / kBitsPerByte) /
                          acc.achievable_memory_bandwidth_Bps();

  std::vector<LowPrecisionCandidate> out;
  // `per_mac` and `fixed` in bits of lanes; cycles = bits / datapath, spread over the units.
  const auto add = [&](LowPrecisionMethod method, double per_mac_bits, double fixed_bits,
                       std::optional<PackingPlan> packing) {
    const double cycles = (per_mac_bits * macs + fixed_bits) / datapath;
    const double compute_s = cycles / acc.compute_units / acc.clock_Hz;
    const double time_s = acc.launch_overhead_s + std::max(compute_s, memory_s);
    out.push_back(LowPrecisionCandidate{method, time_s, 2 * macs / time_s, cycles / macs,
                                        packing, std::nullopt});
  };
  add(LowPrecisionMethod::Int8Gemmlowp, kGemmlowpBitsPerMac, 0, std::nullopt);
  add(LowPrecisionMethod::Int8Qnnpack, kQnnpackBitsPerMac, 0, std::nullopt);
  for (const PackingScheme scheme : {PackingScheme::Dense, PackingScheme::Headroom}) {
    const PackingPlan plan = plan_packing(bits, scheme);
    if (plan.local_accumulations < 1) continue;
    const double products = plan.products_per_multiply;
    const double local = static_cast<double>(plan.accumulations_per_extraction());
    const double extract_bits = scheme == PackingScheme::Dense ? kDenseExtractOps * plan.product_lane_bits
                                                               : kHeadroomExtractOps * plan.product_lane_bits;
    const double per_mac = plan.operand_lane_bits / products + extract_bits / (products * local);
    const double packing_bits = (a_elements + b_elements) * kPackOpsPerElement * kBitsPerByte;
    add(scheme == PackingScheme::Dense ? LowPrecisionMethod::UlppackDense : LowPrecisionMethod::UlppackHeadroom,
        per_mac, packing_bits, plan);
  }
  const double planes = static_cast<double>(bits.weight) * bits.activation;
  const double bit_serial_per_mac = planes * (kBitSerialOpsPerPlanePair + 1 / kPopcountAddsBeforeWiden);
  const double bit_serial_fixed =
      (a_elements * bits.activation + b_elements * bits.weight) * kPlaneOpsPerElementBit * kBitsPerByte +
      outputs * planes * kCombineOpsPerPlanePair * kAccumulatorBits;
  add(LowPrecisionMethod::BitSerial, bit_serial_per_mac, bit_serial_fixed, std::nullopt);
  return out;
}

LowPrecisionEstimate LowPrecisionGemmModel::estimate(const GemmShape& shape, BitWidths bits) const {
  if (bits.weight < 1 || bits.weight > kInt8Bits || bits.activation < 1 || bits.activation > kInt8Bits)
    throw Error(fmt::format("LowPrecisionGemmModel: bit widths must be 1..{}, got {}", kInt8Bits,
                            bit_widths_name(bits)));
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0 || shape.batch <= 0)
    throw Error(fmt::format("LowPrecisionGemmModel: m, n, k and batch must be > 0, got m={} n={} k={} batch={}",
                            shape.m, shape.n, shape.k, shape.batch));
  const auto& acc = gemm_.accelerator();
  LowPrecisionEstimate out;
  out.bits = bits;
  out.shape = shape;
  if (acc.simd_width_bits > 0) {
    if (simd_datapath_bits() <= 0)
      throw Error(fmt::format("LowPrecisionGemmModel: accelerator '{}' has simd.width but no int8 peak and clock to "
                              "derive its multiply rate from",
                              acc.name));
    out.candidates = simd(shape, bits);
  } else {
    out.candidates = native(shape, bits);
    if (out.candidates.empty())
      throw Error(fmt::format("LowPrecisionGemmModel: accelerator '{}' has no int4, fp8, int8, fp16 or bf16 peak to run "
                              "{} in",
                              acc.name, bit_widths_name(bits)));
  }
  for (std::size_t i = 1; i < out.candidates.size(); ++i)
    if (out.candidates[i].time_s < out.candidates[out.best].time_s) out.best = i;
  return out;
}

}  // namespace clearfog::kernels
