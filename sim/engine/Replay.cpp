#include "engine/Replay.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Engine.hpp>
#include <spdlog/spdlog.h>
#include <xbt/config.hpp>

#include <cstdio>
#include <string>

#include "core/Errors.hpp"
#include "core/PhaseTimer.hpp"
#include "engine/ActivityReplay.hpp"
#include "engine/MemoryBudget.hpp"
#include "engine/QuotientPlatform.hpp"
#include "engine/Symmetry.hpp"
#include "program/MessageIndex.hpp"
#include "topology/SimGridPlatform.hpp"

namespace sg4 = simgrid::s4u;

namespace clearfog::engine {
namespace {

// Nominal host speed: hosts run no Exec (compute ops are timers), so the value only has to be valid.
constexpr double kHostSpeed = 1e12;
/// Runs with at least this many ops announce their size and memory estimate on stderr (--progress).
constexpr std::uint64_t kLongRunOps = 2000000;

std::vector<std::string> engine_arguments() {
  return {"clearfog", "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0", "--log=root.thresh:critical",
          "--log=xbt_cfg.thresh:critical",
          // Our own deadlock report names the stuck ops.
          "--log=ker_engine.app:file:/dev/null", "--log=ker_engine.add:off"};
}

/// Every rank replayed on its own host.
ReplayRanks full_ranks(const program::Plan& plan, const topology::SimGridPlatform& platform) {
  ReplayRanks r;
  for (int rank = 0; rank < plan.rank_count(); ++rank) {
    r.ranks.push_back(rank);
    r.hosts.push_back(platform.hosts[rank]);
    r.slot_of_rank.push_back(rank);
    r.receiver_host.push_back(platform.hosts[rank]);
  }
  if (plan.interference.collective != 1.0)
    r.device_links.assign(platform.device_links.begin(), platform.device_links.begin() + plan.rank_count());
  return r;
}

/// The ranks to replay: one representative per class when a symmetry is proven, else every rank.
ReplayRanks choose_ranks(const program::Plan& plan, const program::MessageIndex& index,
                         const topology::SimGridPlatform& platform, const ReplayOptions& options, ReplayInfo& info) {
  if (!options.symmetry) {
    info.detail = "symmetry not tried (--no-symmetry)";
    return full_ranks(plan, platform);
  }
  // A kernel slows the links of its own device; the quotient platform folds links together.
  if (plan.interference.collective != 1.0) {
    info.detail = "no symmetry: collectives slowed beside compute change each device's links on their own";
    return full_ranks(plan, platform);
  }
  const SymmetryDecision decision = prove_symmetry(plan, index, platform.hosts);
  if (!decision.reduction) {
    info.detail = "no symmetry: " + decision.reason;
    return full_ranks(plan, platform);
  }
  const auto& reduction = *decision.reduction;
  std::string axes;
  for (const auto& a : reduction.axes) axes += (axes.empty() ? "" : ", ") + a;
  info.mode = "symmetric";
  info.detail = fmt::format("{} isomorphic ranks per class ({})", reduction.group_order, axes);
  if (!decision.reason.empty()) info.detail += "; not used: " + decision.reason;
  return build_quotient_platform(plan, reduction, platform.root, kHostSpeed);
}

/// The identical flows the replay may carry together (when asked), said in `info`.
FlowMerging merge_flows(const program::Plan& plan, const program::MessageIndex& index, const ReplayRanks& ranks,
                        const ReplayOptions& options, ReplayInfo& info) {
  if (!options.merge_identical_flows) return {};
  MergeNetwork network;
  network.tcp_gamma_B = simgrid::config::get_value<double>("network/TCP-gamma");
  network.latency_factor = simgrid::config::get_value<double>("network/latency-factor");
  network.crosstraffic = simgrid::config::get_value<bool>("network/crosstraffic");
  FlowMerging merging = plan_flow_merging(plan, index, ranks, network);
  info.detail += merging.merged()
                     ? fmt::format("; {} transfers in {} comms (identical flows merged)", merging.transfers, merging.comms)
                     : "; identical flows not merged: " + merging.refusal;
  return merging;
}

}  // namespace

SimulationResult simulate(const topology::ClusterTopology& topology, const program::Plan& plan,
                          const ReplayOptions& options) {
  PhaseTimer phases;
  const program::MessageIndex index = program::index_messages(plan);
  phases.mark("plan checked and messages matched");
  if (plan.rank_count() > topology.endpoint_count())
    throw SimulationError(fmt::format("plan has {} ranks but the platform only {} endpoints", plan.rank_count(),
                                      topology.endpoint_count()));

  auto args = engine_arguments();
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  sg4::Engine engine(&argc, argv.data());
  const auto platform = topology::build_simgrid_platform(topology, kHostSpeed);
  phases.mark("SimGrid platform built");
  ReplayInfo info;
  ReplayRanks ranks = choose_ranks(plan, index, platform, options, info);
  platform.root->seal();
  phases.mark("symmetry decided");
  const ReplayFootprint footprint = estimate_footprint(plan, index, ranks, topology.endpoint_count());
  spdlog::debug("estimated memory: {:.0f} MB (plan {:.0f}, planner {:.0f}, index {:.0f}, state {:.0f}, SimGrid {:.0f})",
                footprint.total_B() / 1e6, footprint.plan_B / 1e6, footprint.planner_B / 1e6, footprint.index_B / 1e6, footprint.state_B / 1e6,
                footprint.simgrid_B / 1e6);
  check_budget(footprint, options.max_memory_B, plan, index);
  // A long run says what it is about to do (a short one stays silent on stderr).
  if (options.progress && plan.op_count() >= kLongRunOps)
    std::fprintf(stderr, "clearfog: replaying %llu ops and %llu messages (%s), estimated memory %.2f GiB\n",
                 static_cast<unsigned long long>(plan.op_count()), static_cast<unsigned long long>(index.messages()),
                 info.mode.c_str(), footprint.total_B() / (1024.0 * 1024 * 1024));
  FlowMerging merging = merge_flows(plan, index, ranks, options, info);
  if (options.merge_identical_flows) phases.mark("identical flows checked");
  spdlog::info("replay: {}, {}", info.mode, info.detail);
  ActivityReplay replay(plan, index, std::move(ranks), options, std::move(merging));
  replay.run();
  phases.mark("replayed");

  SimulationResult result;
  result.makespan_s = sg4::Engine::get_clock();
  result.ops.resize(static_cast<std::size_t>(plan.rank_count()));
  const auto& slot_of_rank = replay.ranks().slot_of_rank;
  for (int r = 0; r < plan.rank_count(); ++r) {
    const int slot = slot_of_rank[r];
    if (slot < 0) continue;
    if (replay.ranks().ranks[slot] == r)
      result.ops[r] = std::move(replay.timings(slot));
  }
  for (int r = 0; r < plan.rank_count(); ++r) {
    const int slot = slot_of_rank[r];
    if (slot >= 0 && replay.ranks().ranks[slot] != r) result.ops.share(r, replay.ranks().ranks[slot]);
  }
  result.ops_executed = plan.op_count();
  result.messages = index.messages();
  info.simulated_ops = replay.ops();
  info.simulated_messages = replay.messages();
  result.replay = info;
  phases.mark("timelines collected");
  return result;
}

}  // namespace clearfog::engine
