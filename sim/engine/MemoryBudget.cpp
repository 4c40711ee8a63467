#include "engine/MemoryBudget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "core/Errors.hpp"
#include "core/Units.hpp"

namespace clearfog::engine {
namespace {

// Replay state per replayed op: ActivityReplay::OpState and its OpTiming (the other ranks of its
// class share that timeline, RankTimings).
constexpr double kStatePerOp_B = 16 + 16;
// Per replayed transfer: ActivityReplay::Posting.
constexpr double kStatePerTransfer_B = 8;
// SimGrid, per endpoint of the platform (host, its share of links, netpoints and route tables) and
// per replayed rank (flows in flight); fitted to peak RSS, see docs/engine.md (section 4).
constexpr double kSimGridPerEndpoint_B = 6e3;
constexpr double kSimGridPerReplayedRank_B = 8e3;
constexpr double kSimGridBase_B = 40e6;  // libraries, models and the process itself
// The planner's peak as a multiple of the plan as it built it, every rank's ops its own before
// identical ones are shared (arrays grown by 1.25 at a time; jemalloc keeps freed pages mapped):
// fitted to the peak RSS of the 175B/1,024-GPU and 530B/2,520-GPU runs (1.087 and 1.070), checked
// on 175B/2,048 GPUs, 1T/4,096 GPUs and 1T/16,384 GPUs, docs/engine.md section 4.
constexpr double kPeakPerUnsharedPlan = 1.08;

double gib(double bytes) { return bytes / (1024.0 * 1024 * 1024); }

}  // namespace

ReplayFootprint estimate_footprint(const program::Plan& plan, const program::MessageIndex& index,
                                   const ReplayRanks& ranks, int endpoints) {
  ReplayFootprint f;
  const auto tables_B =
      static_cast<double>(plan.ranks.names().memory_bytes() + plan.ranks.tables().values.memory_bytes());
  double unshared_B = 0;
  for (const auto& p : plan.ranks) {
    f.plan_B += static_cast<double>(p.memory_bytes());
    unshared_B += static_cast<double>(p.unshared_memory_bytes());
  }
  f.plan_B += tables_B;
  // The planner's peak: the ops as it built them (with its growth and freed pages), and the tables.
  f.planner_B = std::max(0.0, kPeakPerUnsharedPlan * unshared_B + tables_B - f.plan_B);
  // index_messages holds every rank's sorted receive keys while it matches them.
  f.index_B = static_cast<double>(index.memory_bytes()) +
              static_cast<double>(program::kMatchKey_B) * static_cast<double>(index.messages());
  for (const int rank : ranks.ranks) {
    const auto& p = plan.ranks[rank];
    f.state_B += kStatePerOp_B * p.size() + kStatePerTransfer_B * static_cast<double>(p.transfer_count());
  }
  f.simgrid_B = kSimGridBase_B + kSimGridPerEndpoint_B * endpoints +
                kSimGridPerReplayedRank_B * static_cast<double>(ranks.ranks.size());
  return f;
}

void check_budget(const ReplayFootprint& footprint, double max_B, const program::Plan& plan,
                  const program::MessageIndex& index) {
  if (max_B <= 0 || footprint.total_B() <= max_B) return;
  throw BudgetError(fmt::format(
      "this run needs about {:.1f} GiB (plan and planner {:.1f}, replay state {:.1f}, SimGrid {:.1f}) for "
      "{} ops and {} messages, more than --max-memory {:.1f} GiB. Simulate fewer events: collectives.fidelity: "
      "fluid (one transfer per peer instead of one per step), simulation.granularity: chunk (one op per model "
      "chunk instead of per layer), fewer micro-batches; or raise --max-memory",
      gib(footprint.total_B()), gib(footprint.plan_B + footprint.planner_B + footprint.index_B), gib(footprint.state_B),
      gib(footprint.simgrid_B), plan.op_count(), index.messages(), gib(max_B)));
}

double available_memory_B() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

}  // namespace clearfog::engine
