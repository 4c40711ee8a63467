// Plans: flat storage read back through op views, shared names and ops, message matching, and
// check_plan rejecting plans that cannot be carried out, before any simulation.
#include <catch2/catch.hpp>

#include "core/Errors.hpp"
#include "program/MessageIndex.hpp"
#include "program/Program.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;
using program::Transfer;

TEST_CASE("program::check_plan: rejects plans that cannot be carried out", "[program]") {
  program::Plan plan;
  plan.ranks.resize(2);
  SECTION("a send nobody receives") {
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{1, 8, 0}}, {});
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("never receives"));
  }
  SECTION("a receive nobody sends") {
    plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {}, {Transfer{0, 8, 0}});
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("never sends"));
  }
  SECTION("sizes that differ") {
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{1, 8, 0}}, {});
    plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "y", {}, {Transfer{0, 16, 0}});
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("expects 16 B"));
  }
  SECTION("a dependency on a later op") {
    plan.ranks[0].add_compute(Stream::Compute, Category::Forward, "a", 1.0, {1});
    plan.ranks[0].add_compute(Stream::Compute, Category::Forward, "b", 1.0);
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("not earlier"));
  }
  SECTION("a peer out of range") {
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{5, 8, 0}}, {});
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("peer 5"));
  }
  SECTION("a tag used twice on one pair") {
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{1, 8, 3}}, {});
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "y", {Transfer{1, 8, 3}}, {});
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("reuses tag 3"));
  }
  // Values are checked once per plan; a bad one is then looked for op by op to name it.
  SECTION("a negative duration") {
    plan.ranks[1].add_compute(Stream::Compute, Category::Forward, "a", 1.0);
    plan.ranks[1].add_compute(Stream::Compute, Category::Forward, "b", -1.0);
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("rank 1 op 1 (b) has a negative or NaN duration"));
  }
  SECTION("a negative size") {
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{1, -8, 0}}, {});
    plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "y", {}, {Transfer{0, -8, 0}});
    REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("rank 0 op 0 (x) moves a negative size"));
  }
}

TEST_CASE("program::index_messages: sends match by tag whatever order the tags come in", "[program]") {
  program::Plan plan;
  plan.ranks.resize(3);
  // Rank 0 sends rank 1 tags 5, 2, 9 and rank 2 tag 2; rank 1 receives 2, 9, 5 (sizes tell them apart).
  for (const auto& [tag, bytes] : std::vector<std::pair<std::uint64_t, double>>{{5, 50}, {2, 20}, {9, 90}})
    plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "s", {Transfer{1, bytes, tag}}, {});
  plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "s2", {Transfer{2, 7, 2}}, {});
  for (const auto& [tag, bytes] : std::vector<std::pair<std::uint64_t, double>>{{2, 20}, {9, 90}, {5, 50}})
    plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "r", {}, {Transfer{0, bytes, tag}});
  plan.ranks[2].add_exchange(Stream::Comm, Category::DataParallelComm, "r2", {}, {Transfer{0, 7, 2}});
  const auto index = program::index_messages(plan);
  CHECK(index.messages() == 4);
  CHECK(index.partner(0, 0) == 2);  // tag 5: rank 1's third receive
  CHECK(index.partner(0, 1) == 0);  // tag 2
  CHECK(index.partner(0, 2) == 1);  // tag 9
  CHECK(index.partner(0, 3) == 0);  // rank 2's only receive
  CHECK(index.partner(1, 2) == 0);
  CHECK(index.partner(2, 0) == 3);
}

TEST_CASE("program::RankProgram: ops read back as they were added, from flat storage", "[program]") {
  program::Plan plan;
  plan.ranks.resize(2);
  auto& p = plan.ranks[0];
  const auto a = p.add_compute(Stream::Compute, Category::Forward, "mb0.L0.fwd", 1.5e-3);
  const auto x = p.add_exchange(Stream::Comm, Category::DataParallelComm, "allreduce.b0", {Transfer{1, 8e6, 4}},
                                {Transfer{1, 8e6, 5}}, {a}, 2e-6);
  p.add_compute(Stream::Compute, Category::Backward, "mb0.L0.bwd", 3e-3, {a, x});
  REQUIRE(p.size() == 3);
  const auto op = p.op(x);
  CHECK(op.kind == program::OpKind::Exchange);
  CHECK(op.stream == Stream::Comm);
  CHECK(op.name == "allreduce.b0");
  CHECK(op.overhead_s == 2e-6);
  CHECK(op.duration_s == 0);
  REQUIRE(op.sends.size() == 1);
  CHECK(op.sends.at(0) == Transfer{1, 8e6, 4});
  CHECK(op.recvs.at(0) == Transfer{1, 8e6, 5});
  CHECK(op.deps == std::vector<program::OpIndex>{a});
  CHECK(p.op(2).deps == std::vector<program::OpIndex>{a, x});
  CHECK(p.op(a).duration_s == 1.5e-3);
  CHECK(p.op(a).sends.empty());
  CHECK(p.op_of_transfer(0) == x);
  CHECK(p.op_of_transfer(1) == x);
  // A name used on another rank is the same entry of the plan's table.
  plan.ranks[1].add_compute(Stream::Compute, Category::Forward, "mb0.L0.fwd", 1.5e-3);
  CHECK(plan.ranks.names().size() == 3);
  CHECK(plan.ranks[1].record(0).name == p.record(a).name);
  CHECK_THROWS_AS(p.op(3), std::out_of_range);
}

TEST_CASE("program::share_identical_ops: ranks with the same ops keep one copy, and may still grow apart",
          "[program]") {
  program::Plan plan;
  plan.ranks.resize(3);
  for (int r = 0; r < 3; ++r) {
    const auto a = plan.ranks[r].add_compute(Stream::Compute, Category::Forward, "f", r == 2 ? 2.0 : 1.0);
    plan.ranks[r].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{(r + 1) % 3, 8, 0}},
                               {Transfer{(r + 2) % 3, 8, 0}}, {a});
  }
  CHECK(program::share_identical_ops(plan) == 1);  // rank 1 shares rank 0's ops; rank 2's duration differs
  CHECK(plan.ranks[1].shares_ops_with(plan.ranks[0]));
  CHECK_FALSE(plan.ranks[2].shares_ops_with(plan.ranks[0]));
  CHECK(plan.ranks[1].sends(1).at(0).peer == 2);  // transfers stay per rank
  plan.ranks[1].add_compute(Stream::Compute, Category::Optimizer, "opt", 1.0);  // copy on write
  CHECK(plan.ranks[0].size() == 2);
  CHECK(plan.ranks[1].size() == 3);
  CHECK_NOTHROW(program::check_plan(plan));
}

TEST_CASE("program::index_messages: every transfer knows where its other end is", "[program]") {
  // Rank 0 sends tags 1 and 2 to rank 1, which receives them in the other order.
  program::Plan plan;
  plan.ranks.resize(2);
  plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "s", {Transfer{1, 8, 1}, Transfer{1, 16, 2}}, {});
  plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "r2", {}, {Transfer{0, 16, 2}});
  plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "r1", {}, {Transfer{0, 8, 1}});
  const auto index = program::index_messages(plan);
  CHECK(index.messages() == 2);
  CHECK(index.partner(0, 0) == 1);  // tag 1 is rank 1's second transfer
  CHECK(index.partner(0, 1) == 0);
  CHECK(index.partner(1, 0) == 1);
  CHECK(index.partner(1, 1) == 0);
}

TEST_CASE("program::check_plan: a tag sent twice on one pair is reported even when it is received once",
          "[program]") {
  program::Plan plan;
  plan.ranks.resize(2);
  plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{1, 8, 3}}, {});
  plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "y", {Transfer{1, 8, 3}}, {});
  plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "z", {}, {Transfer{0, 8, 3}});
  REQUIRE_THROWS_WITH(program::check_plan(plan), Catch::Contains("op 1 (y) reuses tag 3 between ranks 0 and 1"));
}
