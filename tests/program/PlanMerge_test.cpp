// program::merge_plans (docs/cluster.md): parts renumbered onto disjoint ranks, delayed by their
// start, repeated for their iterations; and, replayed, two parts whose messages cross one link take
// twice as long as either alone (max-min sharing), while parts on disjoint links keep their times.
#include <catch2/catch.hpp>

#include <vector>

#include "core/Errors.hpp"
#include "engine/ForkedRun.hpp"
#include "program/PlanMerge.hpp"
#include "support/TopologyPlatforms.hpp"

using namespace clearfog;
using program::Category;
using program::Plan;
using program::PlanPart;
using program::Stream;
using program::Transfer;

namespace {

/// Rank 0 computes `compute_s`, then sends `bytes` to rank 1 (tag 7), which receives them.
Plan compute_then_send(double compute_s, double bytes) {
  Plan plan;
  plan.ranks.resize(2);
  plan.ranks[0].add_compute(Stream::Compute, Category::Forward, "work", compute_s);
  plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "send", {Transfer{1, bytes, 7}}, {}, {0});
  plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "recv", {}, {Transfer{0, bytes, 7}});
  return plan;
}

PlanPart part(const Plan& plan, std::vector<int> ranks, double start_s = 0, int iterations = 1) {
  return PlanPart{&plan, std::move(ranks), start_s, iterations};
}

}  // namespace

TEST_CASE("program::merge_plans: ranks renumbered, a start op first, iterations chained with shifted tags",
          "[program][cluster]") {
  const Plan job = compute_then_send(1.0, 1e6);
  const std::vector<PlanPart> parts = {part(job, {3, 1}, 0.5, 2)};
  const Plan merged = program::merge_plans(parts, 4);
  REQUIRE(merged.rank_count() == 4);
  CHECK(merged.ranks[0].empty());
  CHECK(merged.ranks[2].empty());
  const auto& sender = merged.ranks[3];
  REQUIRE(sender.size() == 1 + 2 * 2);
  CHECK(sender.name(0) == "job.start");
  CHECK(sender.seconds(0) == 0.5);
  // Iteration 0: work waits for the start op; the send for work (its own dependency) and the start.
  CHECK(sender.deps(1).size() == 1);
  CHECK(sender.deps(1)[0] == 0);
  // Iteration 1's first op of each stream waits for the last op of every stream of iteration 0.
  const auto next = sender.deps(program::merged_op_index(2, 1, 0));
  CHECK(std::vector<program::OpIndex>(next.begin(), next.end()) == std::vector<program::OpIndex>{1, 2});
  // Peers renumbered, tags shifted by (largest tag + 1) per iteration.
  CHECK(sender.sends(2)[0].peer == 1);
  CHECK(sender.sends(2)[0].tag == 7);
  CHECK(sender.sends(4)[0].tag == 7 + 8);
  CHECK(merged.ranks[1].recvs(program::merged_op_index(1, 1, 0))[0].peer == 3);
  program::check_plan(merged);
}

TEST_CASE("program::merge_plans: refuses rank maps that collide or do not fit", "[program][cluster]") {
  const Plan job = compute_then_send(1.0, 1e6);
  CHECK_THROWS_AS(program::merge_plans(std::vector<PlanPart>{part(job, {0})}, 2), Error);          // one rank short
  CHECK_THROWS_AS(program::merge_plans(std::vector<PlanPart>{part(job, {0, 2})}, 2), Error);       // outside
  CHECK_THROWS_AS(program::merge_plans(std::vector<PlanPart>{part(job, {0, 1}), part(job, {1, 2})}, 3), Error);
  CHECK_THROWS_AS(program::merge_plans(std::vector<PlanPart>{part(job, {0, 1}, 0, 0)}, 2), Error);  // no iteration
  CHECK_THROWS_AS(program::merge_plans(std::vector<PlanPart>{part(job, {0, 1}, -1)}, 2), Error);    // negative start
}

TEST_CASE("program::merge_plans: replayed, a part starts late and repeats — sharing a link halves each part's rate",
          "[program][cluster][engine]") {
  // Four devices under two PCIe switches (0, 1 | 2, 3); device links 100x faster than the uplinks,
  // no latency: a transfer from one switch to the other moves at the uplink's rate, or half of it
  // when two transfers cross the uplinks together.
  constexpr double kUplink_Bps = 1e9, kBytes = 1e9;
  const auto topology = topology::ClusterTopology::build(
      test::pcie_tree_platform(4, 2, config::LinkSpec{100 * kUplink_Bps, 0}, config::LinkSpec{kUplink_Bps, 0}));
  const Plan job = compute_then_send(1.0, kBytes);
  const double alone_s = 1.0 + kBytes / kUplink_Bps;  // compute, then the transfer at the bottleneck's rate

  SECTION("start offset and iterations") {
    const auto r = engine::simulate_forked(topology, program::merge_plans(std::vector<PlanPart>{part(job, {0, 2}, 0.25, 3)}, 4));
    CHECK(r.makespan_s == Approx(0.25 + 3 * alone_s).epsilon(1e-9));
    CHECK(r.ops[2][program::merged_op_index(1, 0, 0)].end_s == Approx(0.25 + alone_s).epsilon(1e-9));
  }
  SECTION("two parts across the same uplinks: each transfer at half the rate") {
    const auto r = engine::simulate_forked(
        topology, program::merge_plans(std::vector<PlanPart>{part(job, {0, 2}), part(job, {1, 3})}, 4));
    CHECK(r.makespan_s == Approx(1.0 + 2 * kBytes / kUplink_Bps).epsilon(1e-9));
  }
  SECTION("two parts on links of their own: each as alone") {
    const auto r = engine::simulate_forked(
        topology, program::merge_plans(std::vector<PlanPart>{part(job, {0, 1}), part(job, {2, 3})}, 4));
    CHECK(r.makespan_s == Approx(1.0 + kBytes / (100 * kUplink_Bps)).epsilon(1e-9));
  }
}
