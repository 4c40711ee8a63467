#pragma once
// Shared by the plan_step tests (tests/parallel/StepPlanner*_test.cpp): a small GPT on a 3D device
// grid over an (almost) free switch, and a record of the collectives the planner asks for.
#include <string>
#include <utility>
#include <vector>

#include "support/PlanRun.hpp"
#include "support/TestPlatforms.hpp"

namespace clearfog::test::step_planner {

/// An 8-layer small GPT on tp x pp x dp devices behind a switch of huge bandwidth and zero latency,
/// micro-batch 1, `micro_batches` micro-batches per replica.
inline config::ScenarioSpec scenario(int tp, int pp, int dp, int micro_batches) {
  config::ScenarioSpec s;
  s.name = "3d test";
  s.platform = test::switch_platform(tp * pp * dp, 1e15, 0);  // huge bandwidth, zero latency
  s.workload = test::with_transformer(test::small_gpt(), [](workload::TransformerSpec& w) { w.layers = 8; });
  s.training.micro_batch = 1;
  s.training.global_batch = micro_batches * dp;
  s.parallelism.tp = tp;
  s.parallelism.pp = pp;
  s.parallelism.dp = dp;
  return s;
}

/// Whether an op belongs to a transformer layer block ("mb0.L3.fwd.tp1...").
inline bool layer_op(const std::string& name) { return name.find(".L") != std::string::npos; }

inline const workload::TransformerSpec& gpt(const config::ScenarioSpec& s) { return test::transformer(s.workload); }

/// Every collective the planner asks for, with its group and bytes (nccl-tests convention).
struct Requested {
  config::CollectiveOp op;
  std::vector<int> members;
  double bytes;
};

/// Plain ring collectives over `devices` that also append every request to `log`.
inline parallel::GroupCollectives recording_collectives(int devices, std::vector<Requested>& log) {
  const auto plain = parallel::plain_group_collectives(devices);
  auto c = plain;
  c.request = [plain, &log](config::CollectiveOp op, const std::vector<int>& members, double bytes) {
    log.push_back({op, members, bytes});
    return plain.request(op, members, bytes);
  };
  return c;
}

/// Requests of `op` over exactly `group`: how many, and their bytes summed.
inline std::pair<int, double> requested(const std::vector<Requested>& log, config::CollectiveOp op,
                                        const std::vector<int>& group) {
  int n = 0;
  double bytes = 0;
  for (const auto& q : log)
    if (q.op == op && q.members == group) {
      ++n;
      bytes += q.bytes;
    }
  return {n, bytes};
}

}  // namespace clearfog::test::step_planner
