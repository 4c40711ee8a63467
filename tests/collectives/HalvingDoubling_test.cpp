// Recursive halving-doubling: log2(p) steps per phase, the ring's volume, and the closed forms
// of formulas.md (Thakur, Rabenseifner & Gropp 2005) on an ideal switch, to 0.5 %.
#include <catch2/catch.hpp>

#include <cmath>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/CollectiveTestSupport.hpp"
#include "collectives/HalvingDoubling.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

TEST_CASE("collectives::HalvingDoubling: all_reduce is 2·log2(p) steps sending 2(p-1)/p·n", "[collectives]") {
  const double n = 16e6;
  for (int p : {2, 4, 8, 16}) {
    const auto plan =
        test::plan_of(test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("halving-doubling"), p, n));
    REQUIRE_NOTHROW(program::check_plan(plan));
    const int log2p = static_cast<int>(std::lround(std::log2(p)));
    for (int r = 0; r < p; ++r) {
      INFO("p = " << p << ", rank " << r);
      CHECK(test::exchanges(plan, r) == 2 * log2p);
      CHECK(test::bytes_sent(plan, r) == Approx(2.0 * (p - 1) / p * n));
    }
  }
}

TEST_CASE("collectives::HalvingDoubling: reduce_scatter and all_gather are log2(p) steps sending (p-1)/p·n",
          "[collectives]") {
  const int p = 8;
  const double n = 16e6;
  for (auto op : {CollectiveOp::ReduceScatter, CollectiveOp::AllGather}) {
    const auto plan = test::plan_of(test::collective(op, clearfog::collectives::collective_algorithm("halving-doubling"), p, n));
    REQUIRE_NOTHROW(program::check_plan(plan));
    for (int r = 0; r < p; ++r) {
      CHECK(test::exchanges(plan, r) == 3);
      CHECK(test::bytes_sent(plan, r) == Approx((p - 1.0) / p * n));
    }
  }
}

TEST_CASE("collectives::HalvingDoubling: other p fold for all_reduce, are rejected otherwise", "[collectives]") {
  const double n = 6e6;
  const int p = 6;  // two extra members fold into a core of four
  const auto plan =
      test::plan_of(test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("halving-doubling"), p, n));
  REQUIRE_NOTHROW(program::check_plan(plan));
  CHECK(test::bytes_sent(plan, 0) == Approx(n));                        // folded: hands its buffer over
  CHECK(test::bytes_sent(plan, 1) == Approx(2.0 * 3 / 4 * n + n));      // core member of a pair
  CHECK(test::bytes_sent(plan, 5) == Approx(2.0 * 3 / 4 * n));          // core member alone
  for (auto op : {CollectiveOp::ReduceScatter, CollectiveOp::AllGather})
    CHECK_THROWS_WITH(test::plan_of(test::collective(op, clearfog::collectives::collective_algorithm("halving-doubling"), p, n)),
                      Catch::Contains("power-of-two") && Catch::Contains("halving-doubling"));
}

TEST_CASE("collectives::HalvingDoubling: all_reduce takes 2·log2(p)·α + 2(p-1)/p·n·β", "[collectives][simulation]") {
  for (int p : {2, 4, 8})
    for (double n : {1e6, 256e6}) {
      const double expected_s = 2 * std::log2(p) * test::kAlpha_s + 2.0 * (p - 1) / p * n * test::kBeta_sPerB;
      INFO("p = " << p << ", n = " << n);
      CHECK(test::simulated_s(test::ideal_switch(p),
                              test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("halving-doubling"), p, n)) ==
            Approx(expected_s).epsilon(5e-3));
    }
}

TEST_CASE("collectives::HalvingDoubling: folding adds 2·(α + n·β)", "[collectives][simulation]") {
  const int p = 6, core = 4;
  const double n = 64e6;
  const double expected_s = 2 * (test::kAlpha_s + n * test::kBeta_sPerB) + 2 * std::log2(core) * test::kAlpha_s +
                            2.0 * (core - 1) / core * n * test::kBeta_sPerB;
  CHECK(test::simulated_s(test::ideal_switch(p),
                          test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("halving-doubling"), p, n)) ==
        Approx(expected_s).epsilon(5e-3));
}

TEST_CASE("collectives::HalvingDoubling: reduce_scatter and all_gather take log2(p)·α + (p-1)/p·n·β",
          "[collectives][simulation]") {
  const int p = 8;
  const double n = 128e6;
  const double expected_s = std::log2(p) * test::kAlpha_s + (p - 1.0) / p * n * test::kBeta_sPerB;
  for (auto op : {CollectiveOp::ReduceScatter, CollectiveOp::AllGather})
    CHECK(test::simulated_s(test::ideal_switch(p), test::collective(op, clearfog::collectives::collective_algorithm("halving-doubling"), p, n)) ==
          Approx(expected_s).epsilon(5e-3));
}
