// The step planner's activation recomputation (docs/recompute.md): what a block, or a fused run
// of checkpointable blocks, re-runs before its backward under the scenario's policy — the whole
// forward with its collectives (full), the attention core (selective), or the ops torchtitan's
// per-op policy did not keep and the collectives whose outputs it did not keep (op).
#include <vector>

#include "parallel/StepPlanner.hpp"

namespace clearfog::parallel::detail {

using program::Category;

namespace {

/// The forward collectives per-op checkpointing runs again: torchtitan's policy keeps the outputs
/// of reduce-scatters, not of the all-gathers (sequence parallelism) or all-reduces (without it).
std::vector<workload::CommPoint> op_recompute_points(std::vector<workload::CommPoint> points) {
  for (auto& p : points) std::erase(p.ops, config::CollectiveOp::ReduceScatter);
  return points;
}

}  // namespace

std::vector<double> StepPlanner::partial_recompute_times(std::size_t block) const {
  const std::size_t policy = workload::policy_index(scenario_.training.recompute);
  std::vector<double> t(static_cast<std::size_t>(dp_), costs_.of(block).recompute_s[policy]);
  for (int d = 0; d < dp_; ++d)
    if (mixed_replica(d)) t[d] = mixed_costs_->of(block).recompute_s[policy];
  return t;
}

StepPlanner::FusedRun StepPlanner::fused_run(std::size_t first, std::size_t last, BackwardPart part,
                                             double accumulating) const {
  const auto zeros = std::vector<double>(static_cast<std::size_t>(dp_), 0.0);
  const std::size_t policy = workload::policy_index(scenario_.training.recompute);
  FusedRun run{zeros, zeros, zeros, {}, {}, 0, 0, 0};
  for (std::size_t b = first; b <= last; ++b) {
    const auto& price = costs_.of(b);
    run.forward_kernels += pass_kernels(b, true);
    run.backward_kernels += pass_kernels(b, false, part) + accumulate_kernels(b, accumulating);
    run.partial_kernels += price.recompute_kernels[policy];
    for (const auto& seg : price.forward) run.forward_points.push_back(seg.comm);
    for (const auto& seg : price.backward) run.backward_points.push_back(seg.comm);
    add_times(run.forward_s, pass_times(b, true));
    add_times(run.backward_s, pass_times(b, false, part));
    add_times(run.backward_s, accumulate_times(b, accumulating));
    add_times(run.partial_s, partial_recompute_times(b));
  }
  return run;
}

void StepPlanner::recompute_run(const FusedRun& run, const std::string& prefix) {
  const auto recompute = scenario_.training.recompute;
  const auto zeros = std::vector<double>(static_cast<std::size_t>(dp_), 0.0);
  if (recompute == config::Recompute::Full) {
    compute(Category::Recompute, prefix + ".layers.recompute", run.forward_s, run.forward_kernels);
    collectives(run.forward_points, prefix + ".tp.recompute");
  } else if (config::partial_recompute(recompute) && run.partial_s != zeros) {
    compute(Category::Recompute, prefix + ".layers.recompute", run.partial_s, run.partial_kernels);
    if (recompute == config::Recompute::Op) collectives(op_recompute_points(run.forward_points), prefix + ".tp.recompute");
  }
}

void StepPlanner::recompute_block(std::size_t b, const std::string& name) {
  const auto recompute = scenario_.training.recompute;
  const auto zeros = std::vector<double>(static_cast<std::size_t>(dp_), 0.0);
  const auto& price = costs_.of(b);
  if (recompute == config::Recompute::Full) {
    if (model_.blocks[b].checkpointable) run_segments(price.forward, Category::Recompute, name + ".re", zeros);
    return;
  }
  const auto partial = partial_recompute_times(b);
  if (!config::partial_recompute(recompute) || partial == zeros) return;
  compute(Category::Recompute, name + (recompute == config::Recompute::Selective ? ".re.core" : ".re.ops"), partial,
          price.recompute_kernels[workload::policy_index(recompute)]);
  if (recompute != config::Recompute::Op) return;
  // one collective per point, as the forward ran them (not merged into one)
  std::vector<workload::CommPoint> points;
  for (const auto& seg : price.forward) points.push_back(seg.comm);
  for (const auto& point : op_recompute_points(std::move(points))) collectives({point}, name + ".re");
}

}  // namespace clearfog::parallel::detail
