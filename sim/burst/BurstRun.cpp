#include "burst/BurstRun.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"
#include "core/Units.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "parallel/BurstCosts.hpp"
#include "report/TimelineSvg.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::burst {
namespace {

/// The scenario as plain data parallelism over all of its platform's devices (the job uses the
/// first `devices` of them; collectives are chosen for those groups on that machine).
config::ScenarioSpec scenario_for(const BurstOptions& o, int platform_devices) {
  auto overrides = o.sets;
  overrides.push_back({"parallelism.dp", std::to_string(platform_devices)});
  overrides.push_back({"parallelism.tp", "1"});
  overrides.push_back({"parallelism.pp", "1"});
  overrides.push_back({"training.micro_batch", "1"});
  return config::load_scenario(o.scenario, overrides);
}

/// Powers of two up to `devices` dividing the batch, and `devices` itself.
std::vector<int> widths_for(int devices, int global_batch) {
  if (global_batch % devices != 0)
    throw option_error("--devices", fmt::format("{} devices cannot share the global batch of {} samples evenly; pick "
                                                "a divisor of it",
                                                devices, global_batch));
  std::vector<int> widths;
  for (int w = 1; w < devices; w *= 2)
    if (global_batch % w == 0) widths.push_back(w);
  widths.push_back(devices);
  return widths;
}

/// Every budget checked before any is simulated. The job is planned as data parallelism over the
/// whole platform (scenario_for), so the batch must also split over all of its devices.
void check_budgets(const std::vector<int>& budgets, int platform_devices, int global_batch) {
  for (const int devices : budgets) {
    if (devices < 1 || devices > platform_devices)
      throw option_error("--devices", fmt::format("{} devices: the platform has 1 to {} (give a larger one with --set "
                                                  "platform=FILE)",
                                                  devices, platform_devices));
    widths_for(devices, global_batch);
  }
  if (global_batch % platform_devices != 0)
    throw option_error("--devices",
                       fmt::format("the global batch of {} samples does not split over the platform's {} devices, "
                                   "which the burst planner's data-parallel baseline needs; resize the platform (--set "
                                   "platform.fabric.nodes=N) or change training.global_batch",
                                   global_batch, platform_devices));
}

/// DeepPool's limit and the tighter ones below it that the candidates are planned with.
std::vector<double> candidate_limits(double limit) {
  std::vector<double> limits;
  for (const double l : {1.25, 1.5, 2.0, 3.0, 4.0})
    if (l < limit) limits.push_back(l);
  limits.push_back(limit);
  return limits;
}

/// The foreground's iterations as a timeline: the background's kernels cut at the foreground's
/// end (it runs on to outlast it), so the chart spans what the throughput figures count.
std::string foreground_timeline(const program::Plan& plan, engine::SimulationResult sim, double end_s,
                                const std::string& title, const parallel::BurstSchedule& schedule) {
  for (int r = 0; r < plan.rank_count(); ++r) {
    const auto& program = plan.ranks[static_cast<std::size_t>(r)];
    for (program::OpIndex i = 0; i < program.size(); ++i) {
      if (program.stream(i) != program::Stream::Background) continue;
      auto& t = sim.ops[r][i];
      if (t.start_s >= end_s) t.start_s = t.end_s = 0;  // never drawn: no duration
      t.end_s = std::min(t.end_s, end_s);
    }
  }
  sim.makespan_s = end_s;
  return report::timeline_svg(plan, sim, title, schedule.devices, fmt::format("{} iterations", schedule.iterations));
}

struct Simulated {
  BurstVariant variant;
  bool background_ran_out = false;
};

/// What every variant of one device budget is simulated on, and how its progress is told.
struct Budget {
  const BurstOptions& options;
  const topology::ClusterTopology& topology;
  const parallel::BurstCosting& costs;
  const parallel::GroupCollectives& collectives;
  parallel::BurstSchedule schedule;
  std::string label;  // "16 devices (budget 2 of 4)"
};

Simulated simulate(const Budget& b, const parallel::BurstPlan& plan, const parallel::BackgroundJob* background,
                   int background_iterations, const std::string& timeline_title, const std::string& variant) {
  const auto& [o, topology, costs, collectives, schedule, label] = b;
  if (o.progress) o.progress(fmt::format("{}: {}", label, variant));
  auto program_plan = parallel::build_burst_plan(costs.problem, plan, schedule, collectives);
  program_plan.interference = costs.interference;
  if (background) parallel::add_background(program_plan, schedule.devices, *background, background_iterations);
  const auto sim = engine::simulate_forked(topology, program_plan, o.replay);
  double end_s = 0;
  for (int r = 0; r < program_plan.rank_count(); ++r) {
    const auto& program = program_plan.ranks[static_cast<std::size_t>(r)];
    for (program::OpIndex i = 0; i < program.size(); ++i)
      if (program.stream(i) != program::Stream::Background) end_s = std::max(end_s, sim.ops[r][i].end_s);
  }
  Simulated out;
  if (!timeline_title.empty())
    out.variant.timeline_svg = foreground_timeline(program_plan, sim, end_s, timeline_title, schedule);
  out.variant.step_s = end_s / schedule.iterations;
  out.variant.samples_per_s = costs.problem.global_batch / out.variant.step_s;
  if (!background) return out;
  // Background work done while the foreground ran, in kernel-seconds at full speed.
  double work_s = 0;
  for (int r = 0; r < schedule.devices; ++r) {
    const auto& program = program_plan.ranks[static_cast<std::size_t>(r)];
    for (program::OpIndex i = 0; i < program.size(); ++i) {
      if (program.stream(i) != program::Stream::Background) continue;
      if (sim.ops[r][i].end_s <= end_s) work_s += program.seconds(i);
      if (i + 1 == program.size() && sim.ops[r][i].end_s <= end_s) out.background_ran_out = true;
    }
  }
  out.variant.background_samples_per_s = work_s / background->iteration_s() * background->batch / end_s;
  return out;
}

/// A variant with the background job, given enough iterations to outlast the foreground.
BurstVariant with_background(const Budget& b, const parallel::BurstPlan& plan, const parallel::BackgroundJob& job,
                             double alone_span_s, const std::string& timeline_title, const std::string& variant) {
  // A background iteration of no time would need endless iterations to outlast the foreground.
  if (!(job.iteration_s() > 0))
    throw option_error("--background", fmt::format("its iteration takes {} s: it has no kernels to fill gaps with",
                                                   job.iteration_s()));
  constexpr double kMaxIterations = 1 << 20;
  double iterations = std::ceil(2 * alone_span_s / job.iteration_s()) + 1;
  for (; iterations <= kMaxIterations; iterations *= 2) {
    const auto s = simulate(b, plan, &job, static_cast<int>(iterations), timeline_title,
                            fmt::format("{}, {:.0f} background iterations", variant, iterations));
    if (!s.background_ran_out) return s.variant;
  }
  throw option_error("--background-batch",
                     fmt::format("the background job would need over {} iterations ({} s each) to outlast the "
                                 "foreground's {} s; give it a larger batch",
                                 kMaxIterations, job.iteration_s(), alone_span_s));
}

/// The background job priced at the foreground's precision; a workload type that cannot train in
/// it says why when it is described, and that is a bad --background.
parallel::BackgroundJob background_job(const config::ScenarioSpec& scenario, const config::WorkloadSpec& workload,
                                       int batch) {
  try {
    return parallel::background_job(scenario, workload, batch);
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& e) {
    throw option_error("--background", e.what());
  }
}

BurstPoint run_point(const BurstOptions& o, const config::ScenarioSpec& scenario, std::size_t index,
                     const config::WorkloadSpec* background) {
  const int devices = o.devices[index];
  const auto widths = widths_for(devices, scenario.training.global_batch);
  const auto costs = parallel::burst_costs(scenario, widths, o.amplification_limit);
  const auto topology = topology::ClusterTopology::build(scenario.platform);
  const auto collectives = driver::group_collectives(topology, scenario, nullptr);
  const Budget budget{o, topology, costs, collectives, parallel::BurstSchedule{devices, o.iterations, costs.optimizer_s},
                      fmt::format("{} devices (budget {} of {})", devices, index + 1, o.devices.size())};
  BurstPoint point;
  point.devices = devices;
  // Timelines of the variants reported: with the background where there is one.
  const auto title = [&](const char* variant, bool with_background) {
    if (!o.timelines || with_background != (background != nullptr)) return std::string();
    return fmt::format("{}: {} on {} devices", scenario.workload.name, variant, devices);
  };

  const auto dp = parallel::plan_uniform(costs.problem, widths.size() - 1);
  point.estimated_dp_s = dp.estimated_s;
  point.dp = simulate(budget, dp, nullptr, 0, title("dp", false), "data parallelism").variant;
  // The planner proposes, the simulation picks: one plan per amplification limit up to the given
  // one and per all-reduce accounting (DeepPool's additive one, or overlapped with the backward);
  // the fastest simulated is the burst plan.
  parallel::BurstPlan burst;
  for (const double limit : candidate_limits(o.amplification_limit))
    for (const bool overlapped : {false, true}) {
      auto problem = costs.problem;
      problem.amplification_limit = limit;
      problem.sync_overlapped = overlapped;
      const auto candidate = parallel::plan_burst(problem);
      if (std::find(point.candidates.begin(), point.candidates.end(), candidate.width_index) != point.candidates.end())
        continue;
      point.candidates.push_back(candidate.width_index);
      const auto simulated = simulate(budget, candidate, nullptr, 0, title("burst", false),
                                      fmt::format("burst candidate {}", point.candidates.size()))
                                 .variant;
      if (point.candidates.size() == 1 || simulated.step_s < point.burst.step_s) {
        point.burst = simulated;
        point.estimated_burst_s = candidate.estimated_s;
        burst = candidate;
      }
    }
  for (std::size_t l = 0; l < costs.problem.layers.size(); ++l) {
    point.layers.push_back(costs.problem.layers[l].name);
    point.widths.push_back(widths[burst.width_index[l]]);
  }
  if (background) {
    const auto job = background_job(scenario, *background, o.background_batch);
    point.dp_background = with_background(budget, dp, job, point.dp.step_s * o.iterations, title("dp+bg", true),
                                          "data parallelism with the background");
    point.burst_background = with_background(budget, burst, job, point.burst.step_s * o.iterations,
                                             title("burst+bg", true), "burst with the background");
  }
  return point;
}

/// "64x2 8x3 1x11": runs of equal widths in layer order.
std::string widths_text(const std::vector<int>& widths) {
  std::string out;
  for (std::size_t i = 0; i < widths.size();) {
    std::size_t k = i;
    while (k < widths.size() && widths[k] == widths[i]) ++k;
    out += fmt::format("{}{}x{}", out.empty() ? "" : " ", widths[i], k - i);
    i = k;
  }
  return out;
}

}  // namespace

BurstResult run_burst(const BurstOptions& o) {
  if (o.devices.empty()) throw option_error("--devices", "give at least one device budget");
  if (!(o.amplification_limit >= 1)) throw option_error("--amplification", "must be >= 1");
  if (o.iterations < 1) throw option_error("--iterations", "must be >= 1");
  if (o.background_batch < 1) throw option_error("--background-batch", "must be >= 1");
  // The scenario as given must be valid (as `clearfog run` would take it); only its platform,
  // workload, precision, optimizer and global batch matter here.
  const auto given = config::load_scenario(o.scenario, o.sets);
  check_budgets(o.devices, given.platform.device_count(), given.training.global_batch);
  const auto base = scenario_for(o, given.platform.device_count());
  std::optional<config::WorkloadSpec> background;
  if (o.background) background = config::load_workload(*o.background);
  BurstResult r;
  r.scenario = base.name;
  r.workload = base.workload.name;
  r.platform = base.platform.name;
  r.background = background ? background->name : "";
  r.global_batch = base.training.global_batch;
  r.background_batch = o.background_batch;
  r.amplification_limit = o.amplification_limit;
  for (std::size_t i = 0; i < o.devices.size(); ++i)
    r.points.push_back(run_point(o, base, i, background ? &*background : nullptr));
  return r;
}

std::string render_burst_text(const BurstResult& r) {
  std::string o = fmt::format("Burst parallelism: {} on {}, global batch {}, amplification limit {}\n", r.workload,
                              r.platform, r.global_batch, r.amplification_limit);
  if (!r.background.empty())
    o += fmt::format("background job on every device: {} at batch {}, trained alone\n", r.background, r.background_batch);
  o += fmt::format("\n{:>7} {:<10} {:>11} {:>11} {:>12} {:>12} {:>12} {:>9}\n", "devices", "variant", "step",
                   "estimated", "samples/s", "background/s", "cluster/s", "vs dp");
  for (const auto& p : r.points) {
    const auto row = [&](const char* name, const BurstVariant& v, double estimated_s) {
      o += fmt::format("{:>7} {:<10} {:>11} {:>11} {:>12.1f} {:>12.1f} {:>12.1f} {:>8.2f}x\n", p.devices, name,
                       units::format(v.step_s, units::Dimension::Time),
                       estimated_s > 0 ? units::format(estimated_s, units::Dimension::Time) : "",
                       v.samples_per_s, v.background_samples_per_s, v.cluster_samples_per_s(),
                       v.cluster_samples_per_s() / p.dp.cluster_samples_per_s());
    };
    row("dp", p.dp, p.estimated_dp_s);
    if (!r.background.empty()) row("dp+bg", p.dp_background, 0);
    row("burst", p.burst, p.estimated_burst_s);
    if (!r.background.empty()) row("burst+bg", p.burst_background, 0);
  }
  o += "\nburst widths (devices x consecutive layers):\n";
  for (const auto& p : r.points)
    o += fmt::format("{:>7}: {}  (fastest of {} simulated candidates)\n", p.devices, widths_text(p.widths),
                     p.candidates.size());
  return o;
}

nlohmann::json burst_json(const BurstResult& r) {
  const auto variant = [](const BurstVariant& v) {
    return nlohmann::json{{"step_s", v.step_s},
                          {"samples_per_s", v.samples_per_s},
                          {"background_samples_per_s", v.background_samples_per_s},
                          {"cluster_samples_per_s", v.cluster_samples_per_s()}};
  };
  nlohmann::json j{{"scenario", r.scenario},         {"workload", r.workload},
                   {"platform", r.platform},         {"global_batch", r.global_batch},
                   {"background", r.background},     {"background_batch", r.background_batch},
                   {"amplification_limit", r.amplification_limit}, {"points", nlohmann::json::array()}};
  for (const auto& p : r.points) {
    nlohmann::json point{{"devices", p.devices},
                         {"layers", p.layers},
                         {"widths", p.widths},
                         {"candidates", p.candidates.size()},
                         {"estimated_dp_s", p.estimated_dp_s},
                         {"estimated_burst_s", p.estimated_burst_s},
                         {"dp", variant(p.dp)},
                         {"burst", variant(p.burst)}};
    if (!r.background.empty()) {
      point["dp_background"] = variant(p.dp_background);
      point["burst_background"] = variant(p.burst_background);
    }
    j["points"].push_back(point);
  }
  return j;
}

}  // namespace clearfog::burst
