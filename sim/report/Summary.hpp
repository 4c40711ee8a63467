#pragma once
// The summary `clearfog run` prints: readable text or JSON (keys documented in docs/output.md).
// Both are deterministic: no wall-clock figures.
#include <nlohmann/json.hpp>
#include <string>

#include "config/ScenarioSpec.hpp"
#include "report/StepMetrics.hpp"

namespace clearfog::report {

std::string render_summary_text(const config::ScenarioSpec& scenario, const StepMetrics& metrics);
nlohmann::ordered_json summary_json(const config::ScenarioSpec& scenario, const StepMetrics& metrics);

}  // namespace clearfog::report
