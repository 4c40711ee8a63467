#pragma once
// "did you mean ...?" for misspelt keys: the closest candidate by edit distance.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clearfog::config {

/// Levenshtein distance (insertions, deletions, substitutions each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` (case-insensitive), if it is close enough to be a plausible typo:
/// at most max(2, |word|/3) edits. Ties go to the earlier candidate.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace clearfog::config
