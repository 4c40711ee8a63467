// Direct algorithms: all-to-all (grouped as NCCL runs it, and pairwise), flat broadcast and reduce,
// sendrecv; schedules and the
// α–β closed forms of formulas.md on an ideal switch, to 0.5 %.
#include <catch2/catch.hpp>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/CollectiveTestSupport.hpp"
#include "collectives/Direct.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

TEST_CASE("collectives::Direct: pairwise all_to_all sends (p-1)/p·n in p-1 steps", "[collectives]") {
  const double n = 8e6;
  for (int p : {2, 3, 8}) {
    const auto s = collectives::pairwise_all_to_all_schedule(p, n);
    CHECK(s.rounds() == p - 1);
    for (int r = 0; r < p; ++r) {
      CHECK(s.active_rounds(r) == p - 1);
      CHECK(s.bytes_sent(r) == Approx((p - 1.0) / p * n));
    }
    // Step s pairs i with i + s and i - s.
    for (const auto& m : s.messages()) CHECK(m.to == (m.from + m.round + 1) % p);
  }
}

TEST_CASE("collectives::Direct: all_to_all sends (p-1)/p·n to every peer at once", "[collectives]") {
  const double n = 8e6;
  for (int p : {2, 3, 8}) {
    const auto plan = test::plan_of(test::collective(CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("direct"), p, n));
    REQUIRE_NOTHROW(program::check_plan(plan));
    for (int r = 0; r < p; ++r) {
      CHECK(test::exchanges(plan, r) == 1);
      CHECK(test::bytes_sent(plan, r) == Approx((p - 1.0) / p * n));
      CHECK(plan.ranks[r].op(0).sends.size() == static_cast<std::size_t>(p - 1));
    }
  }
}

TEST_CASE("collectives::Direct: broadcast, reduce and sendrecv move n to each receiver", "[collectives]") {
  const int p = 5;
  const double n = 1e6;
  auto req = test::collective(CollectiveOp::Broadcast, clearfog::collectives::collective_algorithm("direct"), p, n);
  req.root = 2;
  const auto bcast = test::plan_of(req);
  REQUIRE_NOTHROW(program::check_plan(bcast));
  CHECK(test::bytes_sent(bcast, 2) == Approx((p - 1) * n));
  CHECK(test::exchanges(bcast, 2) == 1);
  req.op = CollectiveOp::Reduce;
  CHECK(test::bytes_received(test::plan_of(req), 2) == Approx((p - 1) * n));

  auto sr = test::collective(CollectiveOp::SendRecv, clearfog::collectives::collective_algorithm("direct"), 2, n);
  sr.ranks = {3, 1};
  const auto plan = test::plan_of(sr, 4);
  REQUIRE_NOTHROW(program::check_plan(plan));
  CHECK(test::bytes_sent(plan, 3) == n);
  CHECK(test::bytes_received(plan, 1) == n);
}

TEST_CASE("collectives::Direct: all_to_all takes α + (p-1)/p·n·β", "[collectives][simulation]") {
  for (int p : {2, 4, 8})
    for (double n : {1e6, 256e6}) {
      const double expected_s = test::kAlpha_s + (p - 1.0) / p * n * test::kBeta_sPerB;
      INFO("p = " << p << ", n = " << n);
      CHECK(test::simulated_s(test::ideal_switch(p),
                              test::collective(CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("direct"), p, n)) ==
            Approx(expected_s).epsilon(5e-3));
    }
}

TEST_CASE("collectives::Direct: sendrecv takes α + n·β, a flat broadcast α + (p-1)·n·β", "[collectives][simulation]") {
  const double n = 64e6;
  auto sr = test::collective(CollectiveOp::SendRecv, clearfog::collectives::collective_algorithm("direct"), 2, n);
  sr.ranks = {1, 0};
  CHECK(test::simulated_s(test::ideal_switch(2), sr) ==
        Approx(test::kAlpha_s + n * test::kBeta_sPerB).epsilon(5e-3));
  const int p = 4;
  // Every message leaves through the root's one link.
  CHECK(test::simulated_s(test::ideal_switch(p),
                          test::collective(CollectiveOp::Broadcast, clearfog::collectives::collective_algorithm("direct"), p, n)) ==
        Approx(test::kAlpha_s + (p - 1) * n * test::kBeta_sPerB).epsilon(5e-3));
}
