#include "config/AcceleratorSpec.hpp"

#include <charconv>

namespace clearfog::config {

std::optional<TileShape> parse_tile_shape(std::string_view text) {
  const auto x = text.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  const auto side = [](std::string_view digits) -> std::optional<int> {
    int value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc{} || end != digits.data() + digits.size() || value <= 0 || value > kMaxTileSide)
      return std::nullopt;
    return value;
  };
  const auto m = side(text.substr(0, x));
  const auto n = side(text.substr(x + 1));
  if (!m || !n) return std::nullopt;
  return TileShape{*m, *n};
}

std::string attention_share_key(AttentionKernel kernel, bool backward) {
  return "attention." + std::string(attention_kernel_name(kernel)) + (backward ? ".backward_share" : ".forward_share");
}

}  // namespace clearfog::config
