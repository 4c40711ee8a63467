#pragma once
// Why `clearfog compare` chose a platform's best configuration: the winner against the runner-up
// (the configuration ranked second at the same fidelity) on step time, exposed communication,
// pipeline bubble and memory, and the knobs in which the two differ.
#include <nlohmann/json.hpp>
#include <string>

#include "compare/Compare.hpp"

namespace clearfog::compare {

/// A duration in 4 significant digits and its unit: "1.234 s", "56.78 ms", "9.1 us".
std::string duration_text(double s);

/// {winner: {knobs, step_time_s, exposed_comm_s, bubble_s, memory_B}, runner_up: {...} or null,
/// faster_by (share of the runner-up's step), differs_in: [knob names]}; null when there is no best.
nlohmann::ordered_json why_best_json(const PlatformResult& r);

/// One sentence for the text output: "tp 1 pp 1 dp 8 mb 16, ZeRO 0, ...; the runner-up differs in
/// micro_batch 16 vs 8: step ... vs ... (3.5 % faster), ..."; empty
/// when there is no best.
std::string why_best_text(const PlatformResult& r);

}  // namespace clearfog::compare
