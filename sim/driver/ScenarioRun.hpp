#pragma once
// One scenario end to end: plan the iteration, build the topology, replay it with SimGrid and
// derive the metrics. Runs a simulation, so at most once per process (run_scenario_forked()
// runs it in a child).
#include <memory>
#include <optional>

#include "collectives/CollectiveLog.hpp"
#include "config/ScenarioSpec.hpp"
#include "driver/RunWatch.hpp"
#include "engine/ReplayOptions.hpp"
#include "engine/SimulationResult.hpp"
#include "parallel/GroupCollectives.hpp"
#include "parallel/StepPlan.hpp"
#include "report/StepMetrics.hpp"

namespace clearfog::topology {
class ClusterTopology;
}

namespace clearfog::driver {

struct ScenarioRun {
  parallel::StepPlan step;
  engine::SimulationResult simulation;
  report::StepMetrics metrics;
  /// Which algorithm, protocol and channels each collective of the plan used.
  std::shared_ptr<collectives::CollectiveLog> collectives;
};

/// How a run is carried out (the replay's options) and what it may use: memory (the estimate from
/// the scenario, then from the plan, is checked against it before planning and before simulating)
/// and a watch told each phase (progress, --timeout).
struct RunOptions {
  engine::ReplayOptions replay;
  bool legacy_replay = false;  // the actor-based replay, for comparisons only (engine/LegacyReplay.hpp)
  std::optional<double> max_memory_bytes;
  RunWatch* watch = nullptr;
};

/// The plan of `scenario`'s iteration and the collectives it used, without simulating it (exports).
struct ScenarioPlan {
  parallel::StepPlan step;
  std::shared_ptr<collectives::CollectiveLog> collectives;
};
ScenarioPlan plan_scenario(const config::ScenarioSpec& scenario);

/// Collectives over any device group of `cluster` (tensor, data-parallel, ZeRO and pipeline
/// groups, burst-parallel layers), chosen as `scenario`'s collectives section says.
parallel::GroupCollectives group_collectives(const topology::ClusterTopology& cluster,
                                             const config::ScenarioSpec& scenario,
                                             std::shared_ptr<collectives::CollectiveLog> log);

ScenarioRun run_scenario(const config::ScenarioSpec& scenario, const RunOptions& options = {});

}  // namespace clearfog::driver
