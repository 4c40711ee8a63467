#pragma once
// How often a text holds a substring (overlapping matches counted): what the page and report tests
// count (rows, plots, escaped characters).
#include <cstddef>
#include <string>

namespace clearfog::test {

inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace clearfog::test
