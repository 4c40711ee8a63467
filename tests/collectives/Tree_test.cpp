// Tree algorithms: NCCL's double binary tree for all_reduce and binomial trees for broadcast and
// reduce; tree shapes, volumes, rounds, and simulated time on an ideal switch.
#include <catch2/catch.hpp>

#include <cmath>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/CollectiveTestSupport.hpp"
#include "collectives/Tree.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

namespace {

int ceil_log2(int p) { return static_cast<int>(std::ceil(std::log2(p))); }

}  // namespace

TEST_CASE("collectives::Tree: the two binary trees span the members, each inner in at most one", "[collectives]") {
  for (int p = 2; p <= 17; ++p) {
    INFO("p = " << p);
    std::vector<int> inner(p, 0);
    for (bool second : {false, true}) {
      const auto parents = collectives::double_binary_tree_parents(p, second);
      CHECK(std::count(parents.begin(), parents.end(), -1) == 1);
      std::vector<int> children(p, 0);
      for (int v = 0; v < p; ++v)
        if (parents[v] >= 0) ++children[parents[v]];
      for (int v = 0; v < p; ++v) {
        CHECK(children[v] <= 2);  // binary
        inner[v] += children[v] > 0;
      }
      CHECK(collectives::tree_depth(parents) == ceil_log2(p));  // throws if a member cannot reach the root
    }
    // Mirroring (even p) makes every member a leaf in one tree; shifting (odd p) all but one.
    CHECK(std::count(inner.begin(), inner.end(), 2) <= (p % 2 == 0 ? 0 : 1));
  }
}

TEST_CASE("collectives::Tree: double binary tree all_reduce moves at most 2n per rank in 2·D + k - 1 rounds",
          "[collectives]") {
  const double n = 64e6;
  const double chunk_B = 1e6;
  for (int p : {2, 3, 8, 12}) {
    INFO("p = " << p);
    auto req = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("tree"), p, n);
    req.chunk_B = chunk_B;
    const auto plan = test::plan_of(req);
    REQUIRE_NOTHROW(program::check_plan(plan));
    for (int r = 0; r < p; ++r) {
      CHECK(test::bytes_sent(plan, r) <= 2 * n * (1 + 1e-12));
      CHECK(test::bytes_received(plan, r) <= 2 * n * (1 + 1e-12));
    }
    const int k = static_cast<int>(std::ceil(n / 2 / chunk_B));
    const int depth = ceil_log2(p);
    CHECK(collectives::tree_all_reduce_schedule(p, n, chunk_B).rounds() == 2 * depth + k - 1);
  }
}

TEST_CASE("collectives::Tree: binomial broadcast and reduce take ceil(log2 p) rounds of n", "[collectives]") {
  const double n = 1e6;
  for (int p : {2, 5, 8}) {
    for (auto op : {CollectiveOp::Broadcast, CollectiveOp::Reduce}) {
      auto req = test::collective(op, clearfog::collectives::collective_algorithm("tree"), p, n);
      req.root = p - 1;
      const auto plan = test::plan_of(req);
      REQUIRE_NOTHROW(program::check_plan(plan));
      const auto schedule = op == CollectiveOp::Broadcast ? collectives::binomial_broadcast_schedule(p, p - 1, n)
                                                          : collectives::binomial_reduce_schedule(p, p - 1, n);
      CHECK(schedule.rounds() == ceil_log2(p));
      CHECK(schedule.messages().size() == static_cast<std::size_t>(p - 1));  // one message per non-root
      CHECK(test::exchanges(plan, p - 1) == ceil_log2(p));  // the root is busy in every round
    }
  }
}

TEST_CASE("collectives::Tree: binomial broadcast takes ceil(log2 p)·(α + n·β)", "[collectives][simulation]") {
  for (int p : {2, 4, 6, 8})
    for (double n : {1e6, 64e6}) {
      INFO("p = " << p << ", n = " << n);
      const double expected_s = ceil_log2(p) * (test::kAlpha_s + n * test::kBeta_sPerB);
      for (auto op : {CollectiveOp::Broadcast, CollectiveOp::Reduce})
        CHECK(test::simulated_s(test::ideal_switch(p), test::collective(op, clearfog::collectives::collective_algorithm("tree"), p, n)) ==
              Approx(expected_s).epsilon(5e-3));
    }
}

TEST_CASE("collectives::Tree: two ranks' double binary tree takes (k + 1)·(α + o) + n·β", "[collectives][simulation]") {
  // p = 2: each rank is the root of one tree and the leaf of the other. Round 0 sends chunk 0 up
  // both trees; in rounds 1 … k-1 a rank sends one chunk up one tree and one down the other
  // (2c on its link, c = n/(2k)); round k sends the last chunk down. Time
  // (k+1)·(α + o) + (2 + 2(k-1))·c·β = (k+1)·(α + o) + n·β.
  const double n = 64e6;
  auto req = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("tree"), 2, n);
  req.chunk_B = 1e6;
  req.step_overhead_s = 2e-6;
  const int k = static_cast<int>(std::ceil(n / 2 / req.chunk_B));
  const double expected_s = (k + 1) * (test::kAlpha_s + req.step_overhead_s) + n * test::kBeta_sPerB;
  CHECK(test::simulated_s(test::ideal_switch(2), req) == Approx(expected_s).epsilon(5e-3));
}

TEST_CASE("collectives::Tree: double binary tree all_reduce between its round bounds", "[collectives][simulation]") {
  // Each of the 2·D + k - 1 rounds pays α, and a member that is inner in one tree and a leaf in
  // the other carries 4 chunks of c = n/(2k) per round in steady state (2n over the whole
  // all-reduce): T >= (2·D + k - 1)·α + 2n·β·(k - 2D)/k ... and T <= (2·D + k - 1)·(α + 4c·β).
  // The pipelined closed form (2·D + k - 1)·α + 2n·β (fill and drain rounds carry less) sits in
  // between; check it to 3 %.
  const double n = 64e6;
  const double chunk_B = 0.5e6;
  for (int p : {4, 8}) {
    auto req = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("tree"), p, n);
    req.chunk_B = chunk_B;
    const int k = static_cast<int>(std::ceil(n / 2 / chunk_B));
    const int depth = ceil_log2(p);
    const int rounds = 2 * depth + k - 1;
    const double c = n / 2 / k;
    const double t = test::simulated_s(test::ideal_switch(p), req);
    INFO("p = " << p << ", k = " << k);
    CHECK(t <= rounds * (test::kAlpha_s + 4 * c * test::kBeta_sPerB) * (1 + 1e-9));
    CHECK(t == Approx(rounds * test::kAlpha_s + 2 * n * test::kBeta_sPerB).epsilon(3e-2));
  }
}
