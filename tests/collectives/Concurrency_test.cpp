// Collectives sharing a plan: groups that share no link do not slow each other down; two
// all-reduces over the same ranks on two streams share every link under max-min fairness.
#include <catch2/catch.hpp>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/CollectiveTestSupport.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

namespace {

double end_of(const engine::SimulationResult& result, const std::vector<program::OpIndex>& last,
              const std::vector<int>& ranks) {
  double end_s = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) end_s = std::max(end_s, result.ops[ranks[i]][last[i]].end_s);
  return end_s;
}

}  // namespace

TEST_CASE("collectives::Concurrency: all-reduces on disjoint groups take the time of one", "[collectives][simulation]") {
  // On a non-blocking switch each device has its own link: groups {0..3} and {4..7} share none.
  const double n = 128e6;
  const auto cluster = topology::ClusterTopology::build(test::ideal_switch(8));
  const auto alone = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), 4, n);
  auto other = alone;
  other.ranks = {4, 5, 6, 7};
  program::Plan plan;
  plan.ranks.resize(8);
  collectives::TagAllocator tags;
  const auto last_a = collectives::append_collective(plan, alone, tags);
  const auto last_b = collectives::append_collective(plan, other, tags);
  const auto both = engine::simulate_forked(cluster, plan);
  const double single_s = test::simulated_s(test::ideal_switch(8), alone);
  CHECK(end_of(both, last_a, alone.ranks) == Approx(single_s).epsilon(5e-3));
  CHECK(end_of(both, last_b, other.ranks) == Approx(single_s).epsilon(5e-3));
}

TEST_CASE("collectives::Concurrency: two all-reduces on the same ranks share the links", "[collectives][simulation]") {
  // Both rings cross every link at every step, so each step takes α + 2·(n/p)·β: each all-reduce
  // ends at 2(p-1)·α + 2·2(p-1)/p·n·β, about twice the time of one alone.
  const int p = 4;
  const double n = 256e6;
  const auto cluster = topology::ClusterTopology::build(test::ideal_switch(p));
  auto comm = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), p, n);
  auto compute = comm;
  comm.stream = program::Stream::Comm;
  compute.stream = program::Stream::Compute;
  compute.name = "c2";
  program::Plan plan;
  plan.ranks.resize(p);
  collectives::TagAllocator tags;
  const auto last_comm = collectives::append_collective(plan, comm, tags);
  const auto last_compute = collectives::append_collective(plan, compute, tags);
  const auto result = engine::simulate_forked(cluster, plan);
  const double single_s = test::simulated_s(test::ideal_switch(p), comm);

  const double alone_s = 2 * (p - 1) * test::kAlpha_s + 2.0 * (p - 1) / p * n * test::kBeta_sPerB;
  const double shared_s = 2 * (p - 1) * test::kAlpha_s + 2 * 2.0 * (p - 1) / p * n * test::kBeta_sPerB;
  const double expected_ratio = shared_s / alone_s;
  CHECK(expected_ratio == Approx(2).epsilon(2e-2));
  CHECK(end_of(result, last_comm, comm.ranks) / single_s == Approx(expected_ratio).epsilon(2e-2));
  CHECK(end_of(result, last_compute, compute.ranks) / single_s == Approx(expected_ratio).epsilon(2e-2));
}
