// Ring all-reduce: the schedule (pure) and its replay against the alpha-beta closed form
// 2(p-1)·α + 2(p-1)/p·n/B (formulas.md), with α the device-to-device latency (two links).
#include <catch2/catch.hpp>

#include <numeric>

#include "collectives/RingAllReduce.hpp"
#include "engine/ForkedRun.hpp"
#include "support/TestPlatforms.hpp"
#include "topology/ClusterTopology.hpp"

using namespace clearfog;

namespace {

std::vector<int> identity_ring(int p) {
  std::vector<int> ring(p);
  std::iota(ring.begin(), ring.end(), 0);
  return ring;
}

program::Plan all_reduce_plan(int p, double bytes) {
  program::Plan plan;
  plan.ranks.resize(p);
  collectives::TagAllocator tags;
  collectives::append_ring_all_reduce(plan, identity_ring(p), bytes, program::Stream::Comm,
                                      program::Category::DataParallelComm, "ar",
                                      std::vector<std::vector<program::OpIndex>>(p), tags);
  return plan;
}

}  // namespace

TEST_CASE("collectives::RingAllReduce: 2(p-1) steps of n/p bytes between ring neighbours", "[collectives]") {
  const std::vector<int> ring = {3, 0, 2, 1};
  const double n = 4096;
  for (int pos = 0; pos < 4; ++pos) {
    const auto steps = collectives::ring_all_reduce_steps(ring, pos, n);
    REQUIRE(steps.size() == 6);
    for (std::size_t s = 0; s < steps.size(); ++s) {
      CHECK(steps[s].bytes == n / 4);
      CHECK(steps[s].send_to == ring[(pos + 1) % 4]);
      CHECK(steps[s].recv_from == ring[(pos + 3) % 4]);
      CHECK(steps[s].reduce == (s < 3));
    }
  }
  CHECK(collectives::ring_all_reduce_steps({7}, 0, n).empty());
}

TEST_CASE("collectives::RingAllReduce: every send has its receive", "[collectives]") {
  for (int p : {2, 3, 8}) REQUIRE_NOTHROW(program::check_plan(all_reduce_plan(p, 1e6)));
}

TEST_CASE("collectives::RingAllReduce: simulated time matches the alpha-beta closed form to 0.1 %",
          "[collectives][simulation]") {
  const double bandwidth_Bps = 300e9;
  const double link_latency_s = 1e-6;
  const double alpha_s = 2 * link_latency_s;  // device -> switch -> device
  for (int p : {2, 3, 4, 8}) {
    for (double n : {1e6, 64e6, 1e9}) {
      const auto topology = topology::ClusterTopology::build(test::switch_platform(p, bandwidth_Bps, link_latency_s));
      const auto result = engine::simulate_forked(topology, all_reduce_plan(p, n));
      const double expected_s = 2.0 * (p - 1) * alpha_s + 2.0 * (p - 1) / p * n / bandwidth_Bps;
      INFO("p = " << p << ", n = " << n << " B");
      CHECK(result.makespan_s == Approx(expected_s).epsilon(1e-3));
      CHECK(result.messages == static_cast<std::uint64_t>(2 * (p - 1) * p));
    }
  }
}
