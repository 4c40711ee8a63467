#pragma once
// `clearfog run --ops`: every kernel of one iteration as the kernel model priced it — shape, work,
// traffic, time, achieved rate, what bounds it, and how often it runs per iteration.
#include <nlohmann/json.hpp>
#include <string>

#include "config/ScenarioSpec.hpp"
#include "parallel/DataParallelPlanner.hpp"

namespace clearfog::report {

/// How many times a kernel of `pass` runs per iteration on one device ("layer.forward" runs
/// layers-per-device x micro-batches times, "optimizer" once).
int runs_per_iteration(const std::string& pass, const config::ScenarioSpec& scenario, int micro_batches);

/// Transformer layers on the busiest device: all of them without pipelining, else the largest
/// pipeline stage's (layers / pp for an even split; the stage's chunks of parallelism.layer_split).
int layers_per_device(const config::ScenarioSpec& scenario);

std::string render_op_table(const config::ScenarioSpec& scenario, const parallel::StepPlan& step);
nlohmann::ordered_json op_table_json(const config::ScenarioSpec& scenario, const parallel::StepPlan& step);

}  // namespace clearfog::report
