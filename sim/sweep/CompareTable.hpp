#pragma once
// The side-by-side table of `clearfog compare`, as text for people and JSON for scripts and tests.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sweep/Compare.hpp"

namespace clearfog::sweep {

std::string render_comparison(const CompareRequest& request, const std::vector<PlatformResult>& results);

nlohmann::ordered_json comparison_json(const CompareRequest& request, const std::vector<PlatformResult>& results);

}  // namespace clearfog::sweep
