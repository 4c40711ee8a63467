#include "cluster/ClusterRun.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "config/ConfigLoader.hpp"
#include "core/Units.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "program/PlanMerge.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::cluster {
namespace {

using units::Dimension;

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

/// One job ready to merge: its plan and where its ranks go.
struct PlannedJob {
  config::ScenarioSpec scenario;
  program::Plan plan;
  program::PlanPart part;
};

/// Job rank r (device r of its own platform) on the cluster: device r % D of its (r / D)-th node.
std::vector<int> rank_map(const std::vector<int>& nodes, int devices_per_node) {
  std::vector<int> ranks;
  for (const int node : nodes)
    for (int d = 0; d < devices_per_node; ++d) ranks.push_back(node * devices_per_node + d);
  return ranks;
}

PlannedJob plan_job(const ClusterSpec& spec, std::size_t j, const std::vector<int>& nodes, int devices_per_node) {
  PlannedJob job;
  job.scenario = load_job_scenario(spec, j);
  job.plan = driver::plan_scenario(job.scenario).step.plan;
  const int devices = job.scenario.platform.device_count();
  if (job.plan.rank_count() != devices)
    throw ConfigError({{spec.jobs[j].location, fmt::format("jobs[{}]", j),
                        fmt::format("the job's plan addresses {} endpoints for {} devices: its collectives reduce "
                                    "in a switch or the network, which a cluster run cannot place; use another "
                                    "collectives.algorithm",
                                    job.plan.rank_count(), devices)}});
  job.part.ranks = rank_map(nodes, devices_per_node);
  job.part.start_s = spec.jobs[j].start_s;
  job.part.iterations = spec.jobs[j].iterations;
  return job;
}

/// The iteration times of `part` in `sim`: iteration k ends when its last op on any of the job's
/// ranks ends; it lasted from the end of iteration k-1 (or the job's start).
std::vector<double> iteration_times(const program::PlanPart& part, const engine::SimulationResult& sim) {
  std::vector<double> ends(static_cast<std::size_t>(part.iterations), part.start_s);
  for (std::size_t r = 0; r < part.ranks.size(); ++r) {
    const auto n = part.plan->ranks[r].size();
    const auto& timeline = sim.ops[static_cast<std::size_t>(part.ranks[r])];
    for (int k = 0; k < part.iterations; ++k)
      for (program::OpIndex i = 0; i < n; ++i)
        ends[static_cast<std::size_t>(k)] =
            std::max(ends[static_cast<std::size_t>(k)], timeline[program::merged_op_index(n, k, i)].end_s);
  }
  std::vector<double> times;
  double previous = part.start_s;
  for (const double end : ends) {
    times.push_back(end - previous);
    previous = end;
  }
  return times;
}

engine::SimulationResult replay(const topology::ClusterTopology& topology, std::span<const program::PlanPart> parts,
                                const ClusterRunOptions& options, const std::string& what) {
  if (options.progress) options.progress("simulating " + what);
  return engine::simulate_forked(topology, program::merge_plans(parts, topology.device_count()), options.replay);
}

std::string nodes_text(const std::vector<int>& nodes) {
  std::string out;
  for (std::size_t i = 0; i < nodes.size();) {
    std::size_t k = i;
    while (k + 1 < nodes.size() && nodes[k + 1] == nodes[k] + 1) ++k;
    if (!out.empty()) out += ",";
    out += k > i ? fmt::format("{}-{}", nodes[i], nodes[k]) : std::to_string(nodes[i]);
    i = k + 1;
  }
  return out;
}

}  // namespace

double ClusterJobResult::mean_s() const { return mean(iteration_s); }
double ClusterJobResult::alone_mean_s() const { return mean(alone_iteration_s); }

ClusterResult run_cluster(const ClusterSpec& spec, const ClusterRunOptions& options) {
  const config::PlatformSpec platform = load_cluster_platform(spec);
  const auto placements = place_cluster_jobs(spec, platform.fabric.nodes);
  const std::size_t n = spec.jobs.size();
  const auto job_text = [&](std::size_t j) { return fmt::format("job {} ({} of {})", spec.jobs[j].name, j + 1, n); };
  std::vector<PlannedJob> jobs;
  jobs.reserve(n);
  for (std::size_t j = 0; j < n; ++j) {
    if (options.progress) options.progress("planning " + job_text(j));
    jobs.push_back(plan_job(spec, j, placements[j], platform.node.devices));
  }
  std::vector<program::PlanPart> parts;
  for (auto& job : jobs) {
    job.part.plan = &job.plan;
    parts.push_back(job.part);
  }
  const auto topology = topology::ClusterTopology::build(platform);
  const engine::SimulationResult together = replay(topology, parts, options, fmt::format("the {} jobs together", n));

  ClusterResult result;
  result.name = spec.name;
  result.platform = platform.name;
  result.nodes = platform.fabric.nodes;
  result.devices = platform.device_count();
  result.placement = spec.placement;
  result.makespan_s = together.makespan_s;
  result.ops = together.ops_executed;
  result.messages = together.messages;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    ClusterJobResult r;
    r.name = spec.jobs[j].name;
    r.scenario = jobs[j].scenario.name;
    r.nodes = placements[j];
    r.devices = jobs[j].scenario.platform.device_count();
    r.start_s = spec.jobs[j].start_s;
    r.samples_per_iteration = jobs[j].scenario.training.global_batch;
    r.iteration_s = iteration_times(parts[j], together);
    r.alone_iteration_s =
        iteration_times(parts[j], replay(topology, std::span(&parts[j], 1), options, job_text(j) + " alone"));
    result.jobs.push_back(std::move(r));
  }
  return result;
}

std::string render_cluster_text(const ClusterResult& r) {
  std::string o = fmt::format("Cluster run {} on {} ({} nodes, {} devices), placement {}\n\n", r.name, r.platform,
                              r.nodes, r.devices, placement_name(r.placement));
  o += fmt::format("{:<12} {:<24} {:>10} {:>7} {:>10} {:>5} {:>12} {:>12} {:>9} {:>12}\n", "job", "scenario", "nodes",
                   "devices", "start", "iter", "step", "alone", "slowdown", "samples/s");
  double together = 0, alone = 0;
  for (const auto& j : r.jobs) {
    o += fmt::format("{:<12} {:<24} {:>10} {:>7} {:>10} {:>5} {:>12} {:>12} {:>8.3f}x {:>12.1f}\n", j.name, j.scenario,
                     nodes_text(j.nodes), j.devices, units::format(j.start_s, Dimension::Time), j.iteration_s.size(),
                     units::format(j.mean_s(), Dimension::Time), units::format(j.alone_mean_s(), Dimension::Time),
                     j.slowdown(), j.samples_per_iteration / j.mean_s());
    together += j.samples_per_iteration / j.mean_s();
    alone += j.samples_per_iteration / j.alone_mean_s();
  }
  o += fmt::format("\nstep: mean iteration time of the job with the others running; alone: the same job alone on "
                   "the same nodes.\ncluster throughput {:.1f} samples/s together, {:.1f} if every job ran alone on "
                   "its nodes ({:.1f} %); last iteration ended at {}.\n",
                   together, alone, 100.0 * (together / alone - 1), units::format(r.makespan_s, Dimension::Time));
  for (const auto& j : r.jobs) {
    if (j.iteration_s.size() < 2) continue;
    std::vector<std::string> times;
    for (const double t : j.iteration_s) times.push_back(units::format(t, Dimension::Time));
    o += fmt::format("{}: iterations {}\n", j.name, fmt::join(times, ", "));
  }
  return o;
}

nlohmann::json cluster_json(const ClusterResult& r) {
  nlohmann::json j;
  j["name"] = r.name;
  j["platform"] = r.platform;
  j["nodes"] = r.nodes;
  j["devices"] = r.devices;
  j["placement"] = std::string(placement_name(r.placement));
  j["makespan_s"] = r.makespan_s;
  j["ops"] = r.ops;
  j["messages"] = r.messages;
  j["jobs"] = nlohmann::json::array();
  for (const auto& job : r.jobs)
    j["jobs"].push_back({{"name", job.name},
                         {"scenario", job.scenario},
                         {"nodes", job.nodes},
                         {"devices", job.devices},
                         {"start_s", job.start_s},
                         {"samples_per_iteration", job.samples_per_iteration},
                         {"iteration_s", job.iteration_s},
                         {"alone_iteration_s", job.alone_iteration_s},
                         {"step_time_s", job.mean_s()},
                         {"alone_step_time_s", job.alone_mean_s()},
                         {"slowdown", job.slowdown()}});
  return j;
}

}  // namespace clearfog::cluster
