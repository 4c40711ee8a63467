// Fluid fidelity: one transfer per (member, peer) with the step plan's latency folded into the
// exchange overhead. On an uncontended topology it must agree with the step plan within 1 % for
// large messages, while simulating far fewer messages.
#include <catch2/catch.hpp>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/CollectiveTestSupport.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;
using config::Fidelity;

namespace {

struct Case {
  CollectiveOp op;
  CollectiveAlgorithm algorithm;
  double chunk_B;  // pipelined algorithms need many chunks for their fill and drain to vanish
};

}  // namespace

TEST_CASE("collectives::Fluid: one exchange per member, one transfer per peer", "[collectives]") {
  const int p = 8;
  auto req = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), p, 64e6);
  req.fidelity = Fidelity::Fluid;
  req.step_overhead_s = 1e-6;
  req.step_latency_s = 2e-6;
  const auto plan = test::plan_of(req);
  REQUIRE_NOTHROW(program::check_plan(plan));
  for (int r = 0; r < p; ++r) {
    REQUIRE(plan.ranks[r].size() == 1);
    const auto& op = plan.ranks[r].op(0);
    CHECK(op.sends.size() == 1);
    CHECK(op.recvs.size() == 1);
    CHECK(op.sends[0].bytes == Approx(2.0 * (p - 1) / p * req.bytes));
    // The 2(p-1) steps' overheads, and the latencies of all but the last, which the transfer pays.
    const int steps = 2 * (p - 1);
    CHECK(op.overhead_s == Approx(steps * req.step_overhead_s + (steps - 1) * req.step_latency_s));
  }
}

TEST_CASE("collectives::Fluid: agrees with the step plan within 1 % for 64 MB and more", "[collectives][simulation]") {
  const int p = 8;
  const std::vector<Case> cases = {
      {CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), 0},
      {CollectiveOp::ReduceScatter, clearfog::collectives::collective_algorithm("ring"), 0},
      {CollectiveOp::AllGather, clearfog::collectives::collective_algorithm("ring"), 0},
      {CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), 1e6},
      {CollectiveOp::Broadcast, clearfog::collectives::collective_algorithm("ring"), 64e3},
      {CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("tree"), 64e3},
      {CollectiveOp::Broadcast, clearfog::collectives::collective_algorithm("tree"), 0},
      {CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("halving-doubling"), 0},
      {CollectiveOp::AllGather, clearfog::collectives::collective_algorithm("halving-doubling"), 0},
      {CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("direct"), 0},
      {CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("hierarchical"), 0},
  };
  for (const auto& c : cases) {
    for (double n : {64e6, 512e6}) {
      auto req = test::collective(c.op, c.algorithm, p, n);
      req.chunk_B = c.chunk_B;
      req.ranks_per_node = 4;
      req.step_overhead_s = 1e-6;
      req.step_latency_s = test::kAlpha_s;
      const double step_s = test::simulated_s(test::ideal_switch(p), req);
      req.fidelity = Fidelity::Fluid;
      const double fluid_s = test::simulated_s(test::ideal_switch(p), req);
      INFO(config::collective_op_name(c.op) << " " << config::collective_algorithm_name(c.algorithm) << ", n = " << n
                                            << ": step " << step_s << " s, fluid " << fluid_s << " s");
      CHECK(fluid_s == Approx(step_s).epsilon(1e-2));
    }
  }
}

TEST_CASE("collectives::Fluid: a ring is p messages instead of 2(p-1)·p", "[collectives][simulation]") {
  const int p = 8;
  auto req = test::collective(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), p, 64e6);
  req.fidelity = Fidelity::Fluid;
  const auto cluster = topology::ClusterTopology::build(test::ideal_switch(p));
  CHECK(engine::simulate_forked(cluster, test::plan_of(req)).messages == static_cast<std::uint64_t>(p));
}
