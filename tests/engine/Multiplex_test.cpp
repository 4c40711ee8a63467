// GPU multiplexing (docs/burst-parallelism.md): a background job's kernels (Stream::Background)
// run only in the gaps of the foreground's compute stream, are never preempted, and a foreground
// kernel that becomes ready while one runs waits for its end. Expected times follow from that rule.
#include <catch2/catch.hpp>

#include "core/Errors.hpp"
#include "engine/ForkedRun.hpp"
#include "engine/LegacyReplay.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;
using program::Transfer;

namespace {

constexpr double kBandwidth_Bps = 100e9;
const auto kTopology = topology::ClusterTopology::build(test::switch_platform(2, kBandwidth_Bps, 0));

/// Rank 0: foreground a (1 s), then b (1 s) once rank 1's message arrives at t = 3 s (2.9 s of
/// compute, then 0.1 s on the wire); background kernels of `background_s` each.
program::Plan gap_plan(int background_kernels, double background_s) {
  program::Plan plan;
  plan.ranks.resize(2);
  auto& r0 = plan.ranks[0];
  r0.add_compute(Stream::Compute, Category::Forward, "a", 1.0);
  const auto recv = r0.add_exchange(Stream::P2p, Category::PipelineComm, "recv", {}, {Transfer{1, 0.1 * kBandwidth_Bps, 1}});
  r0.add_compute(Stream::Compute, Category::Forward, "b", 1.0, {recv});
  for (int k = 0; k < background_kernels; ++k)
    r0.add_compute(Stream::Background, Category::Forward, "bg", background_s);
  auto& r1 = plan.ranks[1];
  const auto x = r1.add_compute(Stream::Compute, Category::Forward, "x", 2.9);
  r1.add_exchange(Stream::P2p, Category::PipelineComm, "send", {Transfer{0, 0.1 * kBandwidth_Bps, 1}}, {}, {x});
  return plan;
}

}  // namespace

TEST_CASE("engine::simulate: background kernels fill the foreground's gaps and are not preempted",
          "[engine][multiplex]") {
  const auto r = engine::simulate_forked(kTopology, gap_plan(4, 0.75));
  const auto& t = r.ops[0];
  // a runs alone (the background waits for the foreground), 0 to 1 s.
  CHECK(t[0].start_s == 0.0);
  CHECK(t[0].end_s == Approx(1.0));
  // The gap from 1 s: background kernels back to back at 1, 1.75 and 2.5 s.
  CHECK(t[3].start_s == Approx(1.0));
  CHECK(t[4].start_s == Approx(1.75));
  CHECK(t[5].start_s == Approx(2.5));
  // b is ready at 3 s but the kernel started at 2.5 s runs to 3.25 s; b then runs 1 s.
  CHECK(t[1].end_s == Approx(3.0).epsilon(1e-9));
  CHECK(t[2].start_s == Approx(3.25).epsilon(1e-9));
  CHECK(t[2].end_s == Approx(4.25).epsilon(1e-9));
  // The last background kernel waits for b.
  CHECK(t[6].start_s == Approx(4.25).epsilon(1e-9));
  CHECK(r.makespan_s == Approx(5.0).epsilon(1e-9));
}

TEST_CASE("engine::simulate: a foreground kernel ready at the same instant as a background one goes first",
          "[engine][multiplex]") {
  program::Plan plan;
  plan.ranks.resize(1);
  plan.ranks[0].add_compute(Stream::Background, Category::Forward, "bg", 2.0);
  plan.ranks[0].add_compute(Stream::Compute, Category::Forward, "fg", 1.0);
  const auto r = engine::simulate_forked(topology::ClusterTopology::build(test::switch_platform(1, kBandwidth_Bps, 0)),
                                         plan);
  CHECK(r.ops[0][1].start_s == 0.0);
  CHECK(r.ops[0][0].start_s == Approx(1.0));
  CHECK(r.ops[0][0].end_s == Approx(3.0));
}

TEST_CASE("engine::simulate: without background kernels the foreground's times are those of the gaps' plan",
          "[engine][multiplex]") {
  const auto alone = engine::simulate_forked(kTopology, gap_plan(0, 0));
  CHECK(alone.ops[0][2].start_s == Approx(3.0).epsilon(1e-9));  // b starts on arrival
  CHECK(alone.makespan_s == Approx(4.0).epsilon(1e-9));
}

TEST_CASE("engine::simulate_legacy refuses background kernels", "[engine][multiplex]") {
  CHECK_THROWS_AS(engine::simulate_legacy(kTopology, gap_plan(1, 1.0)), SimulationError);
}
