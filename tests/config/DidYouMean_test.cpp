// Edit distance and the "did you mean" suggestion for misspelt keys.
#include <catch2/catch.hpp>

#include "config/DidYouMean.hpp"

using namespace clearfog::config;

TEST_CASE("config::DidYouMean: edit distance counts insertions, deletions, substitutions", "[config]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("bandwith", "bandwidth") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("golbal", "global") == 2);  // a transposition is two edits
}

TEST_CASE("config::DidYouMean: suggests only plausible typos", "[config]") {
  const std::vector<std::string> keys = {"bandwidth", "latency"};
  CHECK(closest_match("bandwith", keys) == "bandwidth");
  CHECK(closest_match("Latency", keys) == "latency");
  CHECK_FALSE(closest_match("topology", keys).has_value());
  CHECK_FALSE(closest_match("x", {}).has_value());
}
