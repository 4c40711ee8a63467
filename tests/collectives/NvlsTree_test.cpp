// NVLS-tree all-reduce (NCCL's NVLSTree): each node's switch reduces, each member of a node heads
// 1/m of the buffer across the nodes' double binary tree. Traffic per member and round count from
// the schedule's definition (NvlsTree.hpp), and the plan that carries them out.
#include <catch2/catch.hpp>

#include <cmath>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/CollectiveTestSupport.hpp"
#include "collectives/NvlsTree.hpp"
#include "collectives/Tree.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

TEST_CASE("collectives::NvlsTree: a member moves c + c/m each way per chunk, its shard crosses the tree",
          "[collectives]") {
  const int m = 4, q = 4, p = m * q;
  const double n = 64e6, chunk_B = 8e6;
  const int k = static_cast<int>(std::ceil(n / chunk_B));
  const auto s = collectives::nvls_tree_all_reduce_schedule(p, m, n, chunk_B);
  // Two trees over the q nodes, each reducing up and broadcasting down: 2 x depth rounds.
  const int depth = std::max(collectives::tree_depth(collectives::double_binary_tree_parents(q, false)),
                             collectives::tree_depth(collectives::double_binary_tree_parents(q, true)));
  CHECK(s.rounds() == k + 3 + 2 * depth);
  for (int i = 0; i < p; ++i) {
    const int sw = p + i / m;
    double to_switch = 0, from_switch = 0, across = 0;
    for (const auto& msg : s.messages()) {
      if (msg.from == i && msg.to == sw) to_switch += msg.bytes;
      if (msg.from == sw && msg.to == i) from_switch += msg.bytes;
      if (msg.from == i && msg.to < p) across += msg.bytes;
      if (msg.from == i && msg.to < p) CHECK(msg.to % m == i % m);  // only to its peers of other nodes
    }
    CHECK(to_switch == Approx(n + n / m));
    CHECK(from_switch == Approx(n / m + n));
    // Its shard n/m, half on each tree: sent up to its parent and down to its children.
    CHECK(across > 0);
    CHECK(across <= 2 * n / m * 2);
  }
}

TEST_CASE("collectives::NvlsTree: planned with one switch endpoint per node", "[collectives]") {
  const int m = 4, q = 2, p = m * q;
  auto r = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("nvls-tree"), p, 16e6);
  r.ranks_per_node = m;
  r.switch_endpoints = {p, p + 1};
  const auto plan = test::plan_of(r, p + q);
  REQUIRE_NOTHROW(program::check_plan(plan));
  CHECK(test::bytes_received(plan, p) == Approx(m * (16e6 + 16e6 / m)));  // all of its node, twice
  r.switch_endpoints = {p};
  CHECK_THROWS_WITH(test::plan_of(r, p + q), Catch::Contains("nvls-tree") && Catch::Contains("switch"));
}
