#include "kernels/LowPrecisionPacking.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace clearfog::kernels {

namespace {

// Kernel variants of the FullPack port (kernels/ULPPACK/*: ..._iter1/2/4/8).
constexpr int kPortIterations[] = {8, 4, 2, 1};

std::optional<int> small_int(std::string_view digits) {
  int value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  if (value < 1 || value > kMaxLowPrecisionBits) return std::nullopt;
  return value;
}

}  // namespace

std::optional<BitWidths> parse_bit_widths(std::string_view text) {
  if (text.size() < 4 || (text[0] != 'w' && text[0] != 'W')) return std::nullopt;
  const auto a = text.find_first_of("aA");
  if (a == std::string_view::npos) return std::nullopt;
  const auto w = small_int(text.substr(1, a - 1));
  const auto act = small_int(text.substr(a + 1));
  if (!w || !act) return std::nullopt;
  return BitWidths{*w, *act};
}

std::string bit_widths_name(BitWidths bits) { return fmt::format("w{}a{}", bits.weight, bits.activation); }

std::string_view packing_scheme_name(PackingScheme scheme) {
  switch (scheme) {
    case PackingScheme::Dense: return "dense";
    case PackingScheme::Headroom: return "headroom";
  }
  return "?";
}

long long PackingPlan::accumulations_per_extraction() const {
  return std::min(local_accumulations, kMaxUnrolledAccumulations);
}

int PackingPlan::port_iterations() const {
  for (int iterations : kPortIterations)
    if (local_accumulations >= iterations) return iterations;
  return 0;
}

PackingPlan plan_packing(BitWidths bits, PackingScheme scheme) {
  PackingPlan plan;
  plan.scheme = scheme;
  plan.max_product = ((1LL << bits.weight) - 1) * ((1LL << bits.activation) - 1);
  if (scheme == PackingScheme::Dense) {
    // One operand per byte of a 16-bit lane; the multiply keeps the low 16 bits, so the top field
    // (a1*w0 at bit 16) falls off and the wanted field is bits 8..15.
    plan.product_lane_bits = 16;
    plan.field_shift = 8;
    plan.field_bits = plan.product_lane_bits - plan.field_shift;
  } else {
    // Operands pre-shifted by 8 - bits within their byte, so the pair sits s = 16 - max(bits) apart;
    // the widening multiply keeps all 32 bits and the wanted field is bits s..2s-1.
    plan.product_lane_bits = 32;
    plan.field_shift = plan.operand_lane_bits - std::max(bits.weight, bits.activation);
    plan.field_bits = plan.field_shift;
  }
  const long long low_limit = ((1LL << plan.field_shift) - 1) / plan.max_product;
  const long long field_limit =
      ((1LL << plan.field_bits) - 1) / (static_cast<long long>(plan.products_per_multiply) * plan.max_product);
  plan.local_accumulations = std::min(low_limit, field_limit);
  return plan;
}

}  // namespace clearfog::kernels
