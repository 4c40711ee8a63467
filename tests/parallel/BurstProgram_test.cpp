// The programs of a burst-parallel plan (docs/burst-parallelism.md): reshards move exactly the
// samples that change device, and on an ideal switch the iteration takes the time the schedule's
// rule gives op by op.
#include <catch2/catch.hpp>

#include "engine/ForkedRun.hpp"
#include "parallel/BurstProgram.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;
using program::Stream;

namespace {

constexpr double kBandwidth_Bps = 100e9;

/// Two layers over 2 devices: layer 0 on both, layer 1 on device 0 only. One second per pass,
/// one second per sample on the wire, one second for layer 0's all-reduce.
parallel::BurstProblem two_layers() {
  parallel::BurstProblem p;
  p.widths = {1, 2};
  p.global_batch = 2;
  p.layers.push_back({"L0", {1.0, 1.0}, {1.0, 1.0}, kBandwidth_Bps, kBandwidth_Bps});
  p.layers.push_back({"L1", {1.0, 1.0}, {1.0, 1.0}, 0, kBandwidth_Bps});
  return p;
}

double bytes_sent(const program::Plan& plan, Stream stream) {
  double sum = 0;
  for (const auto& rank : plan.ranks)
    for (const auto& op : rank.ops())
      if (op.stream == stream)
        for (const auto& t : op.sends) sum += t.bytes;
  return sum;
}

}  // namespace

TEST_CASE("parallel::build_burst_plan: reshards carry the samples that change device", "[parallel][burst]") {
  parallel::BurstProblem p;
  p.widths = {1, 2, 4};
  p.global_batch = 8;
  for (int l = 0; l < 3; ++l) p.layers.push_back({"L" + std::to_string(l), {1, 1, 1}, {1, 1, 1}, 0, 10.0});
  parallel::BurstPlan plan;
  plan.width_index = {2, 0, 1};  // 4, 1, 2 devices
  const auto built = parallel::build_burst_plan(p, plan, {4, 1, {0, 0, 0}}, parallel::plain_group_collectives(4));
  program::check_plan(built);
  // Forward 4 -> 1: the 6 samples not on device 0; 1 -> 2: the 4 odd ones. Backward the same
  // boundaries in reverse: 2 -> 1 returns 4, 1 -> 4 sends 6. 20 samples of 10 B.
  CHECK(bytes_sent(built, Stream::P2p) == Approx(20 * 10.0));
  // Uniform widths move nothing.
  plan.width_index = {2, 2, 2};
  CHECK(bytes_sent(parallel::build_burst_plan(p, plan, {4, 1, {0, 0, 0}}, parallel::plain_group_collectives(4)),
                   Stream::P2p) == 0);
}

TEST_CASE("parallel::build_burst_plan: the iteration on an ideal switch follows the schedule", "[parallel][burst]") {
  const auto p = two_layers();
  parallel::BurstPlan plan;
  plan.width_index = {1, 0};
  const auto built = parallel::build_burst_plan(p, plan, {2, 1, {0.5, 0.5}}, parallel::plain_group_collectives(2));
  const auto r = engine::simulate_forked(topology::ClusterTopology::build(test::switch_platform(2, kBandwidth_Bps, 0)),
                                         built);
  // L0 forward on both [0, 1]; device 1's sample to device 0 [1, 2]; L1 forward and backward on
  // device 0 [2, 4]; the gradient back to device 1 [4, 5]; L0 backward on device 0 [4, 5] (its
  // own sample needs nothing), on device 1 [5, 6]; L0's all-reduce (two 0.5 s ring steps) [6, 7];
  // optimizer steps: device 0 both layers [7, 8], device 1 layer 0 [7, 7.5].
  CHECK(r.makespan_s == Approx(8.0).epsilon(1e-9));
  const auto& ops0 = built.ranks[0].ops();
  for (std::size_t i = 0; i < ops0.size(); ++i)
    if (ops0[i].name.str() == "L0.bwd") CHECK(r.ops[0][i].start_s == Approx(4.0).epsilon(1e-9));
  double device1_end = 0;
  for (const auto& t : r.ops[1]) device1_end = std::max(device1_end, t.end_s);
  CHECK(device1_end == Approx(7.5).epsilon(1e-9));
}

TEST_CASE("parallel::add_background: each device gets the job's kernels on the background stream",
          "[parallel][burst]") {
  program::Plan plan;
  plan.ranks.resize(3);
  const parallel::BackgroundJob job{{1.0, 2.0}, {3.0, 4.0}, 0.5, 16};
  CHECK(job.iteration_s() == Approx(10.5));
  parallel::add_background(plan, 2, job, 3);
  CHECK(plan.ranks[0].size() == 3 * 5);
  CHECK(plan.ranks[1].size() == 3 * 5);
  CHECK(plan.ranks[2].size() == 0);
  for (const auto& op : plan.ranks[0].ops()) CHECK(op.stream == Stream::Background);
}
