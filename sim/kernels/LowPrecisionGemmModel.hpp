#pragma once
// Sub-8-bit GEMMs ("wXaY": X-bit weights, Y-bit activations) on one accelerator. Matrix units run
// them in the narrowest native type that holds the values exactly (int4, fp8, int8, 16-bit
// floats), priced by the blocked-GEMM model. SIMD parts (simd.width > 0) run integer kernels whose
// instruction mix this model counts: plain int8 (gemmlowp-like, QNNPACK-like), ULPPACK packing in
// both schemes, and bit-serial. The fastest candidate is the estimate.
// docs/compute-model.md ("Low precision") gives the equations.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/AcceleratorSpec.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "kernels/Kernel.hpp"
#include "kernels/LowPrecisionPacking.hpp"

namespace clearfog::kernels {

enum class LowPrecisionMethod {
  NativeInt4,      ///< int4 matrix units (A100)
  NativeFp8,       ///< fp8 e4m3 holds integers up to 16 exactly (H100)
  NativeInt8,      ///< int8 matrix units
  NativeFp16,      ///< fp16/bf16 matrix units (11 and 8 significant bits)
  NativeBf16,
  Int8Gemmlowp,    ///< SIMD: 8x8->16-bit multiply, pairwise add into 32 bits after every product
  Int8Qnnpack,     ///< SIMD: operands widened to 16 bits, 16x16->32-bit multiply-accumulate
  UlppackDense,    ///< SIMD: ULPPACK scheme 1
  UlppackHeadroom, ///< SIMD: ULPPACK scheme 2
  BitSerial,       ///< SIMD: AND + popcount over bit planes
};
std::string_view low_precision_method_name(LowPrecisionMethod method);

struct LowPrecisionCandidate {
  LowPrecisionMethod method = LowPrecisionMethod::NativeInt8;
  double time_s = 0;
  double ops_per_s = 0;                 // useful 2*m*n*k*batch / time_s
  double simd_cycles_per_mac = 0;       // SIMD kernels: cycles of one unit per useful MAC; else 0
  std::optional<PackingPlan> packing;   // ULPPACK only
  std::optional<GemmEstimate> gemm;     // native only
};

struct LowPrecisionEstimate {
  BitWidths bits;
  GemmShape shape;
  std::vector<LowPrecisionCandidate> candidates;  // every method the accelerator can run
  std::size_t best = 0;                           // index of the fastest
  [[nodiscard]] const LowPrecisionCandidate& chosen() const { return candidates.at(best); }
  [[nodiscard]] const LowPrecisionCandidate* find(LowPrecisionMethod method) const;
};

/// The integer GEMM types as bit widths, int8 -> w8a8 and int4 -> w4a4; nullopt for any other
/// name. `clearfog gemm --dtype int8` and the wXaY comparison thereby pick among the same
/// implementations (the fastest the accelerator has: its matrix units, or on SIMD parts the int8
/// kernels whose instruction mixes this model counts, not the multiplier's peak).
std::optional<BitWidths> integer_bit_widths(std::string_view dtype);

class LowPrecisionGemmModel {
public:
  explicit LowPrecisionGemmModel(const config::AcceleratorSpec& accelerator);
  /// Bit widths 1 to 8 (8: plain int8). clearfog::Error when the accelerator can run none of the
  /// methods (a SIMD part without an int8 peak, a matrix part without any type wide enough).
  [[nodiscard]] LowPrecisionEstimate estimate(const GemmShape& shape, BitWidths bits) const;
  /// Bits per cycle of one unit's SIMD multiply datapath, from its int8 peak: one 8-bit product per
  /// 8 bits (64 on a Cortex-A72). 0 for matrix units.
  [[nodiscard]] double simd_datapath_bits() const;

private:
  [[nodiscard]] std::vector<LowPrecisionCandidate> native(const GemmShape& shape, BitWidths bits) const;
  [[nodiscard]] std::vector<LowPrecisionCandidate> simd(const GemmShape& shape, BitWidths bits) const;
  BlockedGemmModel gemm_;
};

}  // namespace clearfog::kernels
