#include "core/Quote.hpp"

#include <fmt/format.h>

namespace clearfog {

std::string shorten(std::string_view text, std::size_t max) {
  std::size_t cut = text.size();
  if (cut > max) {
    cut = max;
    // Do not split a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  }
  std::string out;
  for (std::size_t i = 0; i < cut; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F)
      out += fmt::format("\\x{:02X}", c);
    else
      out += static_cast<char>(c);
  }
  if (cut < text.size()) out += fmt::format("\u2026 ({} bytes)", text.size());
  return out;
}

std::string quote(std::string_view text, std::size_t max) { return "\"" + shorten(text, max) + "\""; }

}  // namespace clearfog
