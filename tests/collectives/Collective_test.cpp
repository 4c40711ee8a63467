// append_collective and supports(): which (operation, algorithm) pairs exist, how requests that
// cannot be planned are refused, and how a collective joins the rest of a plan.
#include <catch2/catch.hpp>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/CollectiveTestSupport.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

TEST_CASE("collectives::Collective: supports() lists what each algorithm implements", "[collectives]") {
  for (CollectiveOp op : config::kAllCollectiveOps) {
    CHECK_FALSE(collectives::supports(op, clearfog::config::CollectiveAlgorithm::nccl()));
    CHECK(collectives::supports(op, clearfog::collectives::collective_algorithm("direct")));  // every operation has a direct form
  }
  CHECK(collectives::supports(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("in-switch")));
  CHECK_FALSE(collectives::supports(CollectiveOp::AllGather, clearfog::collectives::collective_algorithm("in-switch")));
  CHECK_FALSE(collectives::supports(CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("ring")));
  CHECK_FALSE(collectives::supports(CollectiveOp::ReduceScatter, clearfog::collectives::collective_algorithm("tree")));
  CHECK(collectives::supports(CollectiveOp::Broadcast, clearfog::collectives::collective_algorithm("tree")));
  CHECK_FALSE(collectives::supports(CollectiveOp::SendRecv, clearfog::collectives::collective_algorithm("halving-doubling")));
}

TEST_CASE("collectives::Collective: every supported pair plans a valid program", "[collectives]") {
  for (CollectiveOp op : config::kAllCollectiveOps)
    for (CollectiveAlgorithm a : clearfog::config::collective_algorithm_choices()) {
      if (!collectives::supports(op, a)) continue;
      const int p = op == CollectiveOp::SendRecv ? 2 : 8;
      auto req = test::collective(op, a, p, 8e6);
      // Two nodes of four (a reducing switch each), else one node, else one member per node: the
      // first placement the algorithm's rule accepts.
      for (int per_node : {4, p, 1}) {
        req.ranks_per_node = per_node;
        req.switch_endpoints = per_node == 4 ? std::vector<int>{p, p + 1} : per_node == p ? std::vector<int>{p}
                                                                                         : std::vector<int>{};
        if (!a.type().refusal(op, collectives::group_shape(req))) break;
      }
      req.root = p - 1;
      INFO(config::collective_op_name(op) << " " << config::collective_algorithm_name(a));
      CHECK_NOTHROW(program::check_plan(test::plan_of(req, p + 2)));
    }
}

TEST_CASE("collectives::Collective: a pair that does not exist is refused naming both", "[collectives]") {
  SECTION("all_to_all over a ring") {
    CHECK_THROWS_WITH(test::plan_of(test::collective(CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("ring"), 4, 1e6)),
                      Catch::Contains("all_to_all") && Catch::Contains("ring"));
  }
  SECTION("sendrecv over a tree") {
    CHECK_THROWS_WITH(test::plan_of(test::collective(CollectiveOp::SendRecv, clearfog::collectives::collective_algorithm("tree"), 2, 1e6)),
                      Catch::Contains("sendrecv") && Catch::Contains("tree"));
  }
  SECTION("auto, which must be resolved first") {
    CHECK_THROWS_WITH(test::plan_of(test::collective(CollectiveOp::AllReduce, clearfog::config::CollectiveAlgorithm::nccl(), 4, 1e6)),
                      Catch::Contains("all_reduce") && Catch::Contains("nccl"));
  }
}

TEST_CASE("collectives::Collective: requests that cannot be planned are refused", "[collectives]") {
  auto req = test::collective(CollectiveOp::Broadcast, clearfog::collectives::collective_algorithm("ring"), 4, 1e6);
  SECTION("a member outside the plan") {
    req.ranks = {0, 1, 2, 9};
    CHECK_THROWS_WITH(test::plan_of(req, 4), Catch::Contains("rank 9") && Catch::Contains("broadcast"));
  }
  SECTION("a member twice") {
    req.ranks = {0, 1, 1, 2};
    CHECK_THROWS_WITH(test::plan_of(req), Catch::Contains("twice"));
  }
  SECTION("no members") {
    req.ranks.clear();
    CHECK_THROWS_WITH(test::plan_of(req, 4), Catch::Contains("no members"));
  }
  SECTION("a root outside the members") {
    req.root = 4;
    CHECK_THROWS_WITH(test::plan_of(req), Catch::Contains("root"));
  }
  SECTION("a negative size") {
    req.bytes = -1;
    CHECK_THROWS_WITH(test::plan_of(req), Catch::Contains("bytes"));
  }
  SECTION("dependencies for another number of members") {
    req.deps.resize(3);
    CHECK_THROWS_WITH(test::plan_of(req), Catch::Contains("dependencies"));
  }
  SECTION("sendrecv between more than two ranks") {
    req.op = CollectiveOp::SendRecv;
    req.algorithm = clearfog::collectives::collective_algorithm("direct");
    CHECK_THROWS_WITH(test::plan_of(req), Catch::Contains("sendrecv"));
  }
}

TEST_CASE("collectives::Collective: members wait for their dependencies and end at the returned op", "[collectives]") {
  const int p = 4;
  program::Plan plan;
  plan.ranks.resize(p);
  std::vector<std::vector<program::OpIndex>> deps(p);
  for (int r = 0; r < p; ++r)
    deps[r] = {plan.ranks[r].add_compute(program::Stream::Compute, program::Category::Backward, "bwd", 1e-3)};
  auto req = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("halving-doubling"), p, 1e6);
  req.deps = deps;
  collectives::TagAllocator tags;
  const auto last = collectives::append_collective(plan, req, tags);
  req.algorithm = clearfog::collectives::collective_algorithm("ring");  // a second collective draws fresh tags
  collectives::append_collective(plan, req, tags);
  REQUIRE_NOTHROW(program::check_plan(plan));
  for (int r = 0; r < p; ++r) {
    CHECK(plan.ranks[r].op(1).deps == deps[r]);
    CHECK(last[r] == 4);  // after bwd, 2·log2(4) steps: ops 1 … 4
  }
}

TEST_CASE("collectives::Collective: a group put in ring order keeps the caller's order for deps and results",
          "[collectives]") {
  // The caller lists the group 0, 1, 2, 3 and gives each member a different number of earlier
  // ops; the platform's ring visits 2, 0, 3, 1. Each rank must wait for its own op and get back
  // its own last op (a torus's ring order once swapped them: ops waited on other ranks' indices).
  const std::vector<int> group = {0, 1, 2, 3}, ring = {2, 0, 3, 1};
  program::Plan plan;
  plan.ranks.resize(4);
  std::vector<std::vector<program::OpIndex>> deps(4);
  for (int r = 0; r < 4; ++r)
    for (int k = 0; k <= r; ++k)
      deps[r] = {plan.ranks[r].add_compute(program::Stream::Compute, program::Category::Backward, "bwd", 1e-3)};
  auto req = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), 4, 1e6);
  req.ranks = ring;
  req.caller_index = {2, 0, 3, 1};  // ring position i holds the caller's member ring[i]
  req.deps = deps;
  collectives::TagAllocator tags;
  const auto last = collectives::append_collective(plan, req, tags);
  REQUIRE_NOTHROW(program::check_plan(plan));
  for (int r = 0; r < 4; ++r) {
    INFO("rank " << r);
    CHECK(plan.ranks[r].op(deps[r][0] + 1).deps == deps[r]);
    CHECK(last[r] + 1 == plan.ranks[r].size());
  }
}

TEST_CASE("collectives::Collective: a one-member group leaves a zero-time marker", "[collectives]") {
  program::Plan plan;
  plan.ranks.resize(1);
  collectives::TagAllocator tags;
  const auto last = collectives::append_collective(
      plan, test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), 1, 1e6), tags);
  REQUIRE(last.size() == 1);
  CHECK(plan.ranks[0].op(last[0]).kind == program::OpKind::Compute);
  CHECK(plan.ranks[0].op(last[0]).duration_s == 0);
}

TEST_CASE("collectives::Collective: an all-to-all-v's bytes carry the protocol overhead like an even all-to-all's",
          "[collectives]") {
  // A caller asks for payload X per member at efficiency e: `bytes` is X / e on the wire. An even
  // all-to-all sends each peer X / e / p; an all-to-all-v whose matrix spreads the same payload
  // evenly must send the same, not the payload X / p.
  const int p = 4;
  const double payload_B = 8e6, efficiency = 0.8;
  auto even = test::collective(CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("direct"), p, payload_B / efficiency);
  even.payload_B = payload_B;
  auto v = even;
  v.matrix.assign(p, std::vector<double>(p, payload_B / p));
  for (int i = 0; i < p; ++i) v.matrix[i][i] = 0;
  const auto a = test::plan_of(even), b = test::plan_of(v);
  for (int r = 0; r < p; ++r) {
    CHECK(test::bytes_sent(b, r) == Approx(test::bytes_sent(a, r)));
    CHECK(test::bytes_sent(b, r) == Approx((p - 1) * payload_B / p / efficiency));
  }
}
