// Checked products of counts: exact below 2^63, nullopt above, never a wrapped value.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <limits>

#include "core/CheckedMath.hpp"

using clearfog::checked_add;
using clearfog::checked_mul;
using clearfog::checked_product;

TEST_CASE("core::CheckedMath: products are exact until they leave int64", "[core]") {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  CHECK(checked_mul(1LL << 31, 1LL << 31) == (1LL << 62));
  CHECK_FALSE(checked_mul(1LL << 32, 1LL << 31).has_value());  // 2^63
  CHECK(checked_add(kMax - 1, 1) == kMax);
  CHECK_FALSE(checked_add(kMax, 1).has_value());
  const std::array<std::int64_t, 0> none{};
  CHECK(checked_product(none) == 1);
}

TEST_CASE("core::CheckedMath: the torus of the issue does not 'equal' 8 devices", "[core]") {
  // 769546 * 989540 * 48448661 = 3.69e19 > 2^63: modulo 2^64 the product wrapped to a small number.
  const std::array<std::int64_t, 3> dims = {769546, 989540, 48448661};
  CHECK_FALSE(checked_product(dims).has_value());
  const std::array<std::int64_t, 3> fits = {4096, 4096, 4096};
  CHECK(checked_product(fits) == (1LL << 36));
}
