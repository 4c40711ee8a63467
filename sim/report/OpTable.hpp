#pragma once
// `clearfog run --ops`: every kernel of one iteration as the kernel model priced it — shape, work,
// traffic, time, achieved rate, what bounds it, and how often it runs per iteration.
#include <nlohmann/json.hpp>
#include <string>

#include "config/ScenarioSpec.hpp"
#include "parallel/StepPlan.hpp"

namespace clearfog::report {

std::string render_op_table(const config::ScenarioSpec& scenario, const parallel::StepPlan& step);
nlohmann::ordered_json op_table_json(const config::ScenarioSpec& scenario, const parallel::StepPlan& step);

}  // namespace clearfog::report
