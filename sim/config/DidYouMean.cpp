#include "config/DidYouMean.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

#include <fmt/format.h>

#include "core/Quote.hpp"

namespace clearfog::config {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table: row[j] = distance(a[0..i), b[0..j)).
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];  // distance(a[0..i-1), b[0..j-1))
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string w = lower(word);
  const std::size_t limit = std::max<std::size_t>(2, w.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(w, lower(c));
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string unknown_key_message(std::string_view written, std::string_view name,
                                const std::vector<std::string>& allowed, std::string_view suggestion_prefix) {
  std::string message = fmt::format("unknown key {}; ", quote(written));
  if (auto best = closest_match(name, allowed))
    message += fmt::format("did you mean \"{}{}\"? ", suggestion_prefix, *best);
  message += fmt::format("allowed here: {}", fmt::join(allowed, ", "));
  return message;
}

}  // namespace clearfog::config
