#pragma once
// User text echoed in messages ("got \"...\""): control characters escaped, so that a message is one
// readable line whatever the input, and long text cut, so that a 4 MB scalar is not printed back.
#include <cstddef>
#include <string>
#include <string_view>

namespace clearfog {

/// Most characters of user text a message repeats.
inline constexpr std::size_t kMaxQuotedChars = 80;

/// `text` with control bytes as \xNN, cut after `max` bytes (at a UTF-8 boundary) with the full
/// length appended: "aaaa… (4194304 bytes)".
std::string shorten(std::string_view text, std::size_t max = kMaxQuotedChars);

/// Most characters of a path a message repeats: paths are shown whole, unless absurd.
inline constexpr std::size_t kMaxQuotedPath = 1024;

/// shorten(text, max) in double quotes: "\"300 GB/s\"".
std::string quote(std::string_view text, std::size_t max = kMaxQuotedChars);

}  // namespace clearfog
