// The replay's memory estimate (docs/engine.md, section 4): what it counts, from the plan's own
// byte counts; its constants are fitted and checked against measured peak RSS in the docs.
#include <catch2/catch.hpp>

#include "engine/MemoryBudget.hpp"
#include "program/MessageIndex.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;
using program::Transfer;

namespace {

/// Four ranks in two identical pairs: 0 and 2 send 1 and 3 a message each, after 100 ops.
program::Plan two_pairs() {
  program::Plan plan;
  plan.ranks.resize(4);
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 100; ++i) plan.ranks[r].add_compute(Stream::Compute, Category::Forward, "f", 1e-3);
  for (const int r : {0, 2}) {
    plan.ranks[r].add_exchange(Stream::Comm, Category::DataParallelComm, "s", {Transfer{r + 1, 8, 0}}, {});
    plan.ranks[r + 1].add_exchange(Stream::Comm, Category::DataParallelComm, "r", {}, {Transfer{r, 8, 0}});
  }
  return plan;
}

engine::ReplayRanks every_rank(const program::Plan& plan) {
  engine::ReplayRanks r;
  for (int x = 0; x < plan.rank_count(); ++x) {
    r.ranks.push_back(x);
    r.slot_of_rank.push_back(x);
  }
  r.hosts.resize(r.ranks.size());
  r.receiver_host.resize(r.ranks.size());
  return r;
}

}  // namespace

TEST_CASE("engine::estimate_footprint: the planner's peak comes before identical ops are shared", "[engine]") {
  auto plan = two_pairs();
  const auto index = program::index_messages(plan);
  const auto before = engine::estimate_footprint(plan, index, every_rank(plan), 4);
  REQUIRE(program::share_identical_ops(plan) == 2);  // rank 2 shares rank 0's ops, 3 shares 1's
  const auto after = engine::estimate_footprint(plan, index, every_rank(plan), 4);
  // The finished plan is smaller once shared, but the planner built every rank's ops first.
  CHECK(after.plan_B < before.plan_B);
  CHECK(after.plan_B + after.planner_B == Approx(before.plan_B + before.planner_B));
  double unshared = 0;
  for (const auto& p : plan.ranks) unshared += static_cast<double>(p.unshared_memory_bytes());
  CHECK(after.plan_B + after.planner_B > unshared);  // growth and freed pages come on top
}

TEST_CASE("engine::estimate_footprint: the message index counts the keys matched while it is built", "[engine]") {
  const auto plan = two_pairs();
  const auto index = program::index_messages(plan);
  const auto f = engine::estimate_footprint(plan, index, every_rank(plan), 4);
  CHECK(f.index_B == Approx(static_cast<double>(index.memory_bytes()) + 2.0 * program::kMatchKey_B));
}
