// The replay engine against hand-derived timelines.
#include <catch2/catch.hpp>

#include "core/Errors.hpp"
#include "engine/ForkedRun.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;
using program::Transfer;

namespace {
const auto kTopology = topology::ClusterTopology::build(test::switch_platform(2, 100e9, 1e-6));
}

TEST_CASE("engine::simulate: ops of one stream run back to back", "[engine][simulation]") {
  program::Plan plan;
  plan.ranks.resize(1);
  plan.ranks[0].add_compute(Stream::Compute, Category::Forward, "a", 1.5e-3);
  plan.ranks[0].add_compute(Stream::Compute, Category::Backward, "b", 2.5e-3);
  const auto r = engine::simulate_forked(kTopology, plan);
  CHECK(r.makespan_s == Approx(4e-3).epsilon(1e-9));
  CHECK(r.ops[0][1].start_s == Approx(1.5e-3).epsilon(1e-9));
}

TEST_CASE("engine::simulate: streams overlap and cross-stream dependencies are honoured", "[engine][simulation]") {
  // Rank 0: compute a (1 ms) then a message of 100 MB to rank 1 on the comm stream, which can only
  // start after a; meanwhile compute b (3 ms) runs. The message takes 2 latencies + 1 ms.
  program::Plan plan;
  plan.ranks.resize(2);
  auto a = plan.ranks[0].add_compute(Stream::Compute, Category::Backward, "a", 1e-3);
  plan.ranks[0].add_compute(Stream::Compute, Category::Backward, "b", 3e-3);
  auto send = plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "send", {Transfer{1, 100e6, 7}}, {}, {a});
  plan.ranks[0].add_compute(Stream::Compute, Category::Optimizer, "after", 0.5e-3, {send});
  plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "recv", {}, {Transfer{0, 100e6, 7}});
  const auto r = engine::simulate_forked(kTopology, plan);
  const double message_s = 2e-6 + 100e6 / 100e9;
  CHECK(r.ops[0][2].start_s == Approx(1e-3).epsilon(1e-9));
  CHECK(r.ops[0][2].end_s == Approx(1e-3 + message_s).epsilon(1e-6));
  // "after" waits for both b (ends at 4 ms) and the send (ends at 2.002 ms).
  CHECK(r.ops[0][3].start_s == Approx(4e-3).epsilon(1e-9));
  CHECK(r.makespan_s == Approx(4.5e-3).epsilon(1e-9));
}

TEST_CASE("engine::simulate: a deadlock is reported with what waits on what", "[engine][simulation]") {
  // Each rank first waits for a message the other only sends afterwards.
  program::Plan plan;
  plan.ranks.resize(2);
  for (int r = 0; r < 2; ++r) {
    plan.ranks[r].add_exchange(Stream::Comm, Category::DataParallelComm, "wait", {}, {Transfer{1 - r, 8, 1}});
    plan.ranks[r].add_exchange(Stream::Comm, Category::DataParallelComm, "reply", {Transfer{1 - r, 8, 1}}, {});
  }
  REQUIRE_THROWS_AS(engine::simulate_forked(kTopology, plan), SimulationError);
  REQUIRE_THROWS_WITH(engine::simulate_forked(kTopology, plan),
                      Catch::Contains("deadlock") && Catch::Contains("stuck at op 0 (wait)") &&
                          Catch::Contains("waits for tag 1 from rank 1"));
}
