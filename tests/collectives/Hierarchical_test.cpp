// Hierarchical collectives: intra-node ring, inter-node ring over same-local-index members,
// intra-node ring. Placement only enters through ranks_per_node, so an ideal switch of 8 devices
// taken as 2 "nodes" of 4 checks the schedule against its α–β form to 0.5 %.
#include <catch2/catch.hpp>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/CollectiveTestSupport.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

namespace {

collectives::CollectiveRequest hierarchical(CollectiveOp op, int p, int per_node, double n) {
  auto r = test::collective(op, clearfog::collectives::collective_algorithm("hierarchical"), p, n);
  r.ranks_per_node = per_node;
  return r;
}

}  // namespace

TEST_CASE("collectives::Hierarchical: all_reduce volumes per phase", "[collectives]") {
  const int p = 8, m = 4, q = 2;
  const double n = 16e6;
  const auto plan = test::plan_of(hierarchical(CollectiveOp::AllReduce, p, m, n));
  REQUIRE_NOTHROW(program::check_plan(plan));
  for (int r = 0; r < p; ++r) {
    // Intra-node reduce-scatter and all-gather (m-1)/m·n each, inter-node ring all-reduce of n/m.
    CHECK(test::bytes_sent(plan, r) == Approx(2.0 * (m - 1) / m * n + 2.0 * (q - 1) / q * n / m));
    CHECK(test::exchanges(plan, r) == 2 * (m - 1) + 2 * (q - 1));
  }
  // Inter-node messages only between members of the same local index.
  for (const auto& op : plan.ranks[1].ops())
    for (const auto& t : op.sends) CHECK((t.peer / m == 0 || t.peer % m == 1));
}

TEST_CASE("collectives::Hierarchical: rejects a node size that does not divide the group", "[collectives]") {
  for (int per_node : {0, 3, -1})
    CHECK_THROWS_WITH(test::plan_of(hierarchical(CollectiveOp::AllReduce, 8, per_node, 1e6)),
                      Catch::Contains("ranks_per_node") && Catch::Contains("hierarchical") &&
                          Catch::Contains("all_reduce"));
}

TEST_CASE("collectives::Hierarchical: all_reduce takes 2(m-1)·α + 2(m-1)/m·n·β + 2(q-1)·α + 2(q-1)/(q·m)·n·β",
          "[collectives][simulation]") {
  const int p = 8;
  for (int m : {2, 4})
    for (double n : {1e6, 128e6}) {
      const int q = p / m;
      const double expected_s = 2 * (m - 1) * test::kAlpha_s + 2.0 * (m - 1) / m * n * test::kBeta_sPerB +
                                2 * (q - 1) * test::kAlpha_s + 2.0 * (q - 1) / (q * m) * n * test::kBeta_sPerB;
      INFO("m = " << m << ", n = " << n);
      CHECK(test::simulated_s(test::ideal_switch(p), hierarchical(CollectiveOp::AllReduce, p, m, n)) ==
            Approx(expected_s).epsilon(5e-3));
    }
}

TEST_CASE("collectives::Hierarchical: reduce_scatter and all_gather take (m-1)·α + (m-1)/m·n·β + (q-1)·α + "
          "(q-1)/(q·m)·n·β", "[collectives][simulation]") {
  const int p = 8, m = 4, q = 2;
  const double n = 128e6;
  const double expected_s = (m - 1) * test::kAlpha_s + (m - 1.0) / m * n * test::kBeta_sPerB +
                            (q - 1) * test::kAlpha_s + (q - 1.0) / (q * m) * n * test::kBeta_sPerB;
  for (auto op : {CollectiveOp::ReduceScatter, CollectiveOp::AllGather}) {
    const auto req = hierarchical(op, p, m, n);
    REQUIRE_NOTHROW(program::check_plan(test::plan_of(req)));
    CHECK(test::simulated_s(test::ideal_switch(p), req) == Approx(expected_s).epsilon(5e-3));
  }
}
