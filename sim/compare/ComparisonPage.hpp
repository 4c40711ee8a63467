#pragma once
// `clearfog compare … --format json > cmp.json; clearfog report cmp.json`: the HTML page of a
// comparison (docs/sweeps.md), from its JSON alone: one row per platform (sortable), and per
// platform the configurations the search simulated, step time against memory per device, with the
// Pareto front and the device's capacity. Deterministic.
#include <nlohmann/json.hpp>
#include <string>

namespace clearfog::compare {

/// True when `j` looks like the output of `clearfog compare --format json` (a "platforms" array).
bool is_comparison_json(const nlohmann::ordered_json& j);

std::string comparison_html(const nlohmann::ordered_json& comparison, const std::string& inputs_text);

}  // namespace clearfog::compare
