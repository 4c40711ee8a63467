#pragma once
// The side-by-side table of `clearfog compare`, as text for people and JSON for scripts and tests.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compare/Compare.hpp"

namespace clearfog::compare {

/// "DGX A100 (8x A100 ..., NVLink3 ...)" -> "DGX A100": the table names, the notes say the rest.
std::string short_platform_name(const std::string& name);

std::string render_comparison(const CompareRequest& request, const std::vector<PlatformResult>& results);

nlohmann::ordered_json comparison_json(const CompareRequest& request, const std::vector<PlatformResult>& results);

}  // namespace clearfog::compare
