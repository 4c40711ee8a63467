#include "driver/ScenarioRun.hpp"

#include <spdlog/spdlog.h>

#include "engine/Replay.hpp"
#include "kernels/RooflineModel.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::driver {

ScenarioRun run_scenario(const config::ScenarioSpec& scenario) {
  ScenarioRun run;
  const kernels::RooflineModel costs(scenario.platform.accelerator);
  run.step = parallel::plan_data_parallel_step(scenario, costs);
  spdlog::debug("planned {} ranks, {} gradient buckets", run.step.plan.rank_count(), run.step.buckets.size());
  const auto topology = topology::ClusterTopology::build(scenario.platform);
  run.simulation = engine::simulate(topology, run.step.plan);
  run.metrics = report::compute_step_metrics(scenario, run.step, run.simulation);
  return run;
}

}  // namespace clearfog::driver
