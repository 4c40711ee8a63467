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

/// "unknown key \"nodes\"; did you mean \"node\"? allowed here: node, fabric": `written` as the user
/// wrote it, `name` (its last segment) matched against `allowed`, the suggestion written after
/// `suggestion_prefix` (the section path of an override, "platform.").
std::string unknown_key_message(std::string_view written, std::string_view name,
                                const std::vector<std::string>& allowed, std::string_view suggestion_prefix);

}  // namespace clearfog::config
