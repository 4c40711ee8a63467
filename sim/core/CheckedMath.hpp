#pragma once
// Products and sums of user-given counts without silent wrap-around: torus extents, fat-tree down
// counts, dp*tp*pp. A product that leaves int64 is reported, never compared modulo 2^64.
#include <cstdint>
#include <optional>
#include <span>

namespace clearfog {

/// a * b, or nullopt when it does not fit in int64.
[[nodiscard]] constexpr std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

/// a + b, or nullopt when it does not fit in int64.
[[nodiscard]] constexpr std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

/// The product of `factors` (1 when empty), or nullopt when a partial product leaves int64.
[[nodiscard]] constexpr std::optional<std::int64_t> checked_product(std::span<const std::int64_t> factors) {
  std::int64_t p = 1;
  for (std::int64_t f : factors) {
    const auto next = checked_mul(p, f);
    if (!next) return std::nullopt;
    p = *next;
  }
  return p;
}

}  // namespace clearfog
