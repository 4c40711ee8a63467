#pragma once
// The bit arithmetic of ULPPACK-style sub-8-bit GEMMs (Won et al., MLSys 2022): two narrow operands
// share one wide multiply lane, packed as a = a0 + a1*2^s and w = w1 + w0*2^s, so that the product
// a*w = a0*w1 + (a0*w0 + a1*w1)*2^s + a1*w0*2^2s carries a two-element dot product in the field at
// bit s. The guard bits of the fields bound how many products can be summed in place before the
// field must be extracted. docs/compute-model.md ("Low precision") gives the derivation.
#include <optional>
#include <string>
#include <string_view>

namespace clearfog::kernels {

/// Weight and activation bit widths of a "wXaY" GEMM, 1..7 each.
struct BitWidths {
  int weight = 0;
  int activation = 0;
  friend bool operator==(const BitWidths&, const BitWidths&) = default;
};

constexpr int kMaxLowPrecisionBits = 7;

/// The deepest kernel of the FullPack NEON port unrolls 8 local multiply-accumulates
/// (kernels/ULPPACK/*_iter8): more than that the guard bits allow is never run.
constexpr long long kMaxUnrolledAccumulations = 8;

/// "w3a3" -> {3, 3}; nullopt unless both widths are 1..7.
std::optional<BitWidths> parse_bit_widths(std::string_view text);
/// {3, 3} -> "w3a3".
std::string bit_widths_name(BitWidths bits);

enum class PackingScheme {
  Dense,     ///< ULPPACK scheme 1: 8-bit spacing in a 16-bit lane, 16-bit products (MLA .8h), dense
  Headroom,  ///< scheme 2: spacing 16 - max(bits), 32-bit products (UMLAL .4s), more guard bits
};
std::string_view packing_scheme_name(PackingScheme scheme);

struct PackingPlan {
  PackingScheme scheme = PackingScheme::Dense;
  int operand_lane_bits = 16;     // multiply input lane holding the packed pair
  int product_lane_bits = 16;     // lane the products are accumulated in (16: low half kept)
  int products_per_multiply = 2;  // dot-product terms one lane multiply computes
  int field_shift = 8;            // s: where the wanted field starts
  int field_bits = 8;             // its width before the next field (or the lane end)
  long long max_product = 0;      // (2^W - 1) * (2^A - 1)
  /// Multiply-accumulates into the packed lane before the field must be extracted: the largest L
  /// with L * max_product < 2^s (low field does not carry) and L * 2 * max_product < 2^field_bits
  /// (the wanted field does not overflow). 0: the widths do not fit this scheme.
  long long local_accumulations = 0;
  /// What the time model runs between two extractions: local_accumulations, at most
  /// kMaxUnrolledAccumulations.
  [[nodiscard]] long long accumulations_per_extraction() const;
  /// What the FullPack NEON port implements: kernels exist for 1, 2, 4 and 8 local iterations, so
  /// it uses the largest of those not above local_accumulations.
  [[nodiscard]] int port_iterations() const;
};

/// Plan for unsigned operands of the given widths (zero points are handled outside the kernel, as
/// in gemmlowp).
PackingPlan plan_packing(BitWidths bits, PackingScheme scheme);

}  // namespace clearfog::kernels
