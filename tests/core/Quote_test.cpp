// User text echoed in messages: one line whatever the input, cut when long, UTF-8 kept whole.
#include <catch2/catch.hpp>

#include <string>

#include "core/Quote.hpp"

using clearfog::quote;
using clearfog::shorten;

TEST_CASE("core::Quote: control characters are escaped", "[core]") {
  CHECK(quote("300 GB/s") == "\"300 GB/s\"");
  CHECK(quote(std::string("a\nb\x1b[31m")) == "\"a\\x0Ab\\x1B[31m\"");
  CHECK(quote(std::string("nul\0byte", 8)) == "\"nul\\x00byte\"");
}

TEST_CASE("core::Quote: long text is cut with its length, never inside a UTF-8 sequence", "[core]") {
  const std::string long_text(10000, 'k');
  CHECK(shorten(long_text, 4) == "kkkk\u2026 (10000 bytes)");
  // "é" is two bytes: a cut after 1 byte would split it, so it backs up to 0.
  CHECK(shorten("\xC3\xA9\xC3\xA9", 1) == "\u2026 (4 bytes)");
  CHECK(shorten("\xC3\xA9\xC3\xA9", 2) == "\xC3\xA9\u2026 (4 bytes)");
}
