#pragma once
// The summary `clearfog run` prints: readable text or JSON (keys documented in docs/output.md).
// Both are deterministic: no wall-clock figures.
#include <nlohmann/json.hpp>
#include <string>

#include "config/ScenarioSpec.hpp"
#include "engine/SimulationResult.hpp"
#include "report/StepMetrics.hpp"

namespace clearfog::report {

std::string render_summary_text(const config::ScenarioSpec& scenario, const StepMetrics& metrics);
nlohmann::ordered_json summary_json(const config::ScenarioSpec& scenario, const StepMetrics& metrics);
/// The summary's "memory" object: the estimate's parts, total, capacity and whether it fits.
nlohmann::ordered_json memory_json(const parallel::MemoryEstimate& memory);

/// How the engine replayed the iteration (every rank, or one per class of isomorphic ranks): the
/// line that follows the summary text, and the object under "simulation"/"replay" in JSON.
std::string render_replay_text(const engine::ReplayInfo& replay);
nlohmann::ordered_json replay_json(const engine::ReplayInfo& replay);

}  // namespace clearfog::report
