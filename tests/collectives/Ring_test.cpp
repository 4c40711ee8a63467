// Ring collectives: schedules (volume per rank, steps, chunk loops) and simulated time against
// the α–β closed forms of formulas.md on an ideal switch, to 0.5 %.
#include <catch2/catch.hpp>

#include <cmath>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/Ring.hpp"
#include "collectives/CollectiveTestSupport.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

TEST_CASE("collectives::Ring: all_reduce sends 2(p-1)/p·n per rank in 2(p-1) steps", "[collectives]") {
  const double n = 12e6;
  for (int p : {2, 3, 5, 8}) {
    const auto plan = test::plan_of(test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), p, n));
    REQUIRE_NOTHROW(program::check_plan(plan));
    for (int r = 0; r < p; ++r) {
      INFO("p = " << p << ", rank " << r);
      CHECK(test::bytes_sent(plan, r) == Approx(2.0 * (p - 1) / p * n));
      CHECK(test::exchanges(plan, r) == 2 * (p - 1));
    }
  }
}

TEST_CASE("collectives::Ring: reduce_scatter and all_gather send (p-1)/p·n in p-1 steps", "[collectives]") {
  const double n = 12e6;
  for (auto op : {CollectiveOp::ReduceScatter, CollectiveOp::AllGather}) {
    const int p = 6;
    const auto plan = test::plan_of(test::collective(op, clearfog::collectives::collective_algorithm("ring"), p, n));
    REQUIRE_NOTHROW(program::check_plan(plan));
    for (int r = 0; r < p; ++r) {
      CHECK(test::bytes_sent(plan, r) == Approx(1.0 * (p - 1) / p * n));
      CHECK(test::exchanges(plan, r) == p - 1);
    }
  }
}

TEST_CASE("collectives::Ring: chunking works the buffer in loops one round apart", "[collectives]") {
  const int p = 4;
  const double n = 64e6;
  const double chunk_B = 1e6;
  const int loops = static_cast<int>(std::ceil(n / p / chunk_B));
  const auto schedule = collectives::ring_all_reduce_schedule(p, n, chunk_B);
  CHECK(schedule.rounds() == 2 * (p - 1) + loops - 1);
  CHECK(schedule.messages().size() == static_cast<std::size_t>(2 * (p - 1) * loops * p));
  for (int r = 0; r < p; ++r) CHECK(schedule.bytes_sent(r) == Approx(2.0 * (p - 1) / p * n));
  // No chunking when a step's message is already below the chunk.
  CHECK(collectives::ring_all_reduce_schedule(p, p * chunk_B / 2, chunk_B).rounds() == 2 * (p - 1));
}

TEST_CASE("collectives::Ring: broadcast and reduce are a chain through every member", "[collectives]") {
  const int p = 5;
  const double n = 1e6;
  for (int root : {0, 3}) {
    auto req = test::collective(CollectiveOp::Broadcast, clearfog::collectives::collective_algorithm("ring"), p, n);
    req.root = root;
    const auto bcast = test::plan_of(req);
    REQUIRE_NOTHROW(program::check_plan(bcast));
    CHECK(test::bytes_received(bcast, root) == 0);
    CHECK(test::bytes_sent(bcast, (root + p - 1) % p) == 0);  // the chain's end
    for (int r = 0; r < p; ++r)
      if (r != root) CHECK(test::bytes_received(bcast, r) == Approx(n));
    req.op = CollectiveOp::Reduce;
    const auto reduce = test::plan_of(req);
    REQUIRE_NOTHROW(program::check_plan(reduce));
    CHECK(test::bytes_sent(reduce, root) == 0);
    CHECK(test::bytes_received(reduce, root) == Approx(n));
  }
}

TEST_CASE("collectives::Ring: all_reduce simulated message by message takes 2(p-1)·α + 2(p-1)/p·n·β to 0.1 %",
          "[collectives][simulation]") {
  // Patarasuk & Yuan 2009 (formulas.md): p-1 reduce-scatter and p-1 all-gather steps of n/p bytes,
  // each a simulated message from a rank to its ring successor across the switch (α = two links).
  for (int p : {2, 3, 4, 8})
    for (double n : {1e6, 64e6, 1e9}) {
      const double expected_s = 2.0 * (p - 1) * test::kAlpha_s + 2.0 * (p - 1) / p * n * test::kBeta_sPerB;
      INFO("p = " << p << ", n = " << n << " B");
      CHECK(test::simulated_s(test::ideal_switch(p), test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"),
                                                                        p, n)) == Approx(expected_s).epsilon(1e-3));
    }
}

TEST_CASE("collectives::Ring: reduce_scatter and all_gather take (p-1)·α + (p-1)/p·n·β",
          "[collectives][simulation]") {
  for (auto op : {CollectiveOp::ReduceScatter, CollectiveOp::AllGather})
    for (int p : {2, 4, 7})
      for (double n : {1e6, 256e6}) {
        const double expected_s = (p - 1) * test::kAlpha_s + (p - 1.0) / p * n * test::kBeta_sPerB;
        INFO(config::collective_op_name(op) << ", p = " << p << ", n = " << n);
        CHECK(test::simulated_s(test::ideal_switch(p), test::collective(op, clearfog::collectives::collective_algorithm("ring"), p, n)) ==
              Approx(expected_s).epsilon(5e-3));
      }
}

TEST_CASE("collectives::Ring: chunked all_reduce takes (2(p-1) + k - 1)·(α + o) + 2(p-1)/p·n·β",
          "[collectives][simulation]") {
  // Loops one round apart: every round pays one latency and one overhead; the links carry the
  // same bytes as without chunks (formulas.md ring all-reduce, with k - 1 extra rounds).
  const int p = 4;
  const double n = 64e6;
  auto req = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), p, n);
  req.chunk_B = 2e6;
  req.step_overhead_s = 3e-6;
  const int k = static_cast<int>(std::ceil(n / p / req.chunk_B));
  const double expected_s =
      (2 * (p - 1) + k - 1) * (test::kAlpha_s + req.step_overhead_s) + 2.0 * (p - 1) / p * n * test::kBeta_sPerB;
  CHECK(test::simulated_s(test::ideal_switch(p), req) == Approx(expected_s).epsilon(5e-3));
}

TEST_CASE("collectives::Ring: a chunked broadcast takes (p - 2 + k)·(α + c·β)", "[collectives][simulation]") {
  // Chunk j crosses hop h in round j + h: p - 1 hops and k chunks fill p - 2 + k rounds of one chunk.
  const int p = 6;
  const double n = 32e6;
  auto req = test::collective(CollectiveOp::Broadcast, clearfog::collectives::collective_algorithm("ring"), p, n);
  req.chunk_B = 4e6;
  req.root = 2;
  const int k = static_cast<int>(std::ceil(n / req.chunk_B));
  const double expected_s = (p - 2 + k) * (test::kAlpha_s + n / k * test::kBeta_sPerB);
  CHECK(test::simulated_s(test::ideal_switch(p), req) == Approx(expected_s).epsilon(5e-3));
}
