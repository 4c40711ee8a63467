// Compute-communication interference (docs/frameworks.md): compute runs the plan's factor slower
// for as long as a sending exchange of another stream is under way on its device; factor 1 leaves
// every time as it was, bit for bit; the legacy replay refuses such plans. The factor's derivation from the
// compute units and the memory share a collective takes. Below: the collective side, transfers
// slowed over the links of a device running a kernel.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "topology/NodeTopologyType.hpp"
#include "core/Errors.hpp"
#include "engine/ForkedRun.hpp"
#include "engine/LegacyReplay.hpp"
#include "config/ConfigLoader.hpp"
#include "support/ReplayTimes.hpp"
#include "support/TestPlatforms.hpp"
#include "support/TopologyPlatforms.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;
using program::Transfer;

namespace {

constexpr double kBandwidth_Bps = 100e9;
const auto kTopology = topology::ClusterTopology::build(test::switch_platform(2, kBandwidth_Bps, 0));

/// Rank 0 computes a (1 s) and b (1 s) while it sends 10 s worth of bytes to rank 1 on the comm
/// stream, then `after` (1 s), which waits for the send.
program::Plan overlapped(double factor) {
  program::Plan plan;
  plan.ranks.resize(2);
  plan.interference.compute = factor;
  plan.ranks[0].add_compute(Stream::Compute, Category::Backward, "a", 1.0);
  plan.ranks[0].add_compute(Stream::Compute, Category::Backward, "b", 1.0);
  plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "send", {Transfer{1, 10 * kBandwidth_Bps, 1}},
                             {});
  plan.ranks[0].add_compute(Stream::Compute, Category::Optimizer, "after", 1.0, {2});
  plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "recv", {}, {Transfer{0, 10 * kBandwidth_Bps, 1}});
  return plan;
}

}  // namespace

TEST_CASE("engine::simulate: compute overlapping a collective runs the plan's factor slower", "[engine][framework]") {
  constexpr double f = 1.25;
  const auto r = engine::simulate_forked(kTopology, overlapped(f));
  CHECK(r.ops[0][0].end_s == Approx(f).epsilon(1e-12));  // both under the send from start to end
  CHECK(r.ops[0][1].end_s - r.ops[0][1].start_s == Approx(f).epsilon(1e-12));
  CHECK(r.ops[0][3].start_s == Approx(10.0).epsilon(1e-9));      // waits for the send
  CHECK(r.ops[0][3].end_s - r.ops[0][3].start_s == Approx(1.0).epsilon(1e-12));  // nothing in flight
}

TEST_CASE("engine::simulate: interference factors 1 leave every time exact", "[engine][framework]") {
  // Factors 1 take the plain timers and untouched links: kernels of 1 s end on whole seconds, bit
  // for bit, and the 10 s send ends at 10 s, as without interference.
  program::Plan plan = overlapped(1.0);
  plan.interference = {1.0, 1.0};
  const auto r = engine::simulate_forked(kTopology, plan);
  CHECK(r.ops[0][0].end_s == 1.0);
  CHECK(r.ops[0][1].start_s == 1.0);
  CHECK(r.ops[0][1].end_s == 2.0);
  CHECK(r.ops[0][2].end_s == Approx(10.0).epsilon(1e-12));
  CHECK(r.ops[0][3].end_s - r.ops[0][3].start_s == Approx(1.0).epsilon(1e-12));
  CHECK(r.replay.detail.find("collectives slowed") == std::string::npos);  // the symmetric replay may run
}

TEST_CASE("engine::simulate: compute partly overlapping a collective is slowed for the overlap only",
          "[engine][framework]") {
  // A 10 s op starts with a 4 s send: 4 s at 1/f of full speed do 4/f of its work, the remaining
  // 10 - 4/f run at full speed after the send: it ends at 14 - 4/f.
  constexpr double f = 1.25;
  program::Plan plan;
  plan.ranks.resize(2);
  plan.interference.compute = f;
  plan.ranks[0].add_compute(Stream::Compute, Category::Backward, "long", 10.0);
  plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "send", {Transfer{1, 4 * kBandwidth_Bps, 1}},
                             {});
  plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "recv", {}, {Transfer{0, 4 * kBandwidth_Bps, 1}});
  const auto r = engine::simulate_forked(kTopology, plan);
  CHECK(r.ops[0][1].end_s == Approx(4.0).epsilon(1e-9));
  CHECK(r.ops[0][0].end_s == Approx(14.0 - 4.0 / f).epsilon(1e-9));
}

namespace {

/// "ran" or "refused": what the legacy replay does with `plan`.
std::string legacy_outcome(const topology::ClusterTopology& topology, const program::Plan& plan) {
  return engine::run_forked([&]() -> std::string {
    try {
      (void)engine::simulate_legacy(topology, plan);
      return "ran";
    } catch (const SimulationError&) {
      return "refused";
    }
  });
}

}  // namespace

TEST_CASE("engine::simulate_legacy: refuses a plan with interference rather than ignore it", "[engine][framework]") {
  CHECK(legacy_outcome(kTopology, overlapped(1.25)) == "refused");
}

TEST_CASE("config::CollectiveCalibration: the interference factor from compute units and memory share",
          "[config][framework]") {
  config::CollectiveCalibration c;
  CHECK(c.compute_slowdown(108) == 1.0);  // nothing given: exactly 1
  c.interference_units = 8;               // e.g. 8 NCCL channels, one thread block each, on 108 SMs
  CHECK(c.compute_slowdown(108) == Approx(108.0 / 100.0));
  c.interference_memory_share = 0.2;      // a streaming kernel shares the memory with 0.2 of its demand
  CHECK(c.compute_slowdown(108) == Approx(1.2));
}

TEST_CASE("engine::simulate: symmetric and full replay agree with interference on", "[engine][framework][simulation]") {
  // The SC21 18.4B row's layout (tp 8 x dp 32, DDP overlap, the cluster's interference) shrunk to
  // one micro-batch per replica.
  const auto s = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/megatron-sc21-base.yaml",
                                       {{"training.global_batch", "256"}});
  REQUIRE(s.platform.collectives.interference_units > 0);
  const auto full = test::replay_times(s, false);
  const auto symmetric = test::replay_times(s, true);
  CHECK(std::abs(symmetric.step_s - full.step_s) <= 1e-9 * full.step_s);
  CHECK(test::worst_difference(symmetric, full) < 1e-9);
}

// The collective side (Interference::collective = g): a transfer over a link that touches a device
// running a kernel moves g times slower, and at full speed once no kernel runs there. On the test
// switch every device has its own port link, so a transfer's ports are its bottleneck.
namespace {

const auto kThree = topology::ClusterTopology::build(test::switch_platform(3, kBandwidth_Bps, 0));

/// Rank `computer` runs one kernel of `kernel_s`; rank 0 sends `send_s` worth of bytes to rank 1.
program::Plan kernel_beside_send(int computer, double kernel_s, double send_s, program::Interference factors) {
  program::Plan plan;
  plan.ranks.resize(3);
  plan.interference = factors;
  plan.ranks[static_cast<std::size_t>(computer)].add_compute(Stream::Compute, Category::Backward, "kernel", kernel_s);
  plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "send",
                             {Transfer{1, send_s * kBandwidth_Bps, 1}}, {});
  plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "recv", {},
                             {Transfer{0, send_s * kBandwidth_Bps, 1}});
  return plan;
}

double send_end(const engine::SimulationResult& r, int computer) { return r.ops[0][computer == 0 ? 1 : 0].end_s; }

}  // namespace

TEST_CASE("engine::simulate: a transfer beside a kernel on either end runs the collective factor slower",
          "[engine][framework]") {
  constexpr double g = 1.25;
  for (const int computer : {0, 1}) {
    const auto r = engine::simulate_forked(kThree, kernel_beside_send(computer, 10.0, 4.0, {1.0, g}));
    CHECK(send_end(r, computer) == Approx(4.0 * g).epsilon(1e-9));
    // Compute factor 1: the kernel keeps its time.
    const auto& kernel = r.ops[static_cast<std::size_t>(computer)][0];
    CHECK(kernel.end_s - kernel.start_s == 10.0);
  }
}

TEST_CASE("engine::simulate: a kernel on a device the transfer does not touch leaves it alone",
          "[engine][framework]") {
  const auto r = engine::simulate_forked(kThree, kernel_beside_send(2, 10.0, 4.0, {1.0, 1.25}));
  CHECK(r.ops[0][0].end_s == Approx(4.0).epsilon(1e-12));
}

TEST_CASE("engine::simulate: a transfer is slowed only while the kernel runs", "[engine][framework]") {
  // 2 s beside the kernel move 2/g s of the bytes; the other 4 - 2/g s move at full speed.
  constexpr double g = 1.25;
  const auto r = engine::simulate_forked(kThree, kernel_beside_send(0, 2.0, 4.0, {1.0, g}));
  CHECK(r.ops[0][1].end_s == Approx(2.0 + 4.0 - 2.0 / g).epsilon(1e-9));
}

TEST_CASE("engine::simulate: compute and collective slowed by each other", "[engine][framework]") {
  // Proportional memory sharing: f = g. The 4 s send takes 4g; in it the 10 s kernel does 4g/f of
  // its work and the rest after, ending at 10 + 4g(1 - 1/f).
  constexpr double f = 1.25, g = 1.25;
  const auto r = engine::simulate_forked(kThree, kernel_beside_send(0, 10.0, 4.0, {f, g}));
  CHECK(r.ops[0][1].end_s == Approx(4.0 * g).epsilon(1e-9));
  CHECK(r.ops[0][0].end_s == Approx(10.0 + 4.0 * g * (1 - 1 / f)).epsilon(1e-9));
}

namespace {

/// Each (rank, seconds) of `kernels_s` computes one kernel while rank `from` sends `send_s` worth of
/// bytes to rank `to`; the other ranks of `ranks` idle.
program::Plan kernels_beside_send(int ranks, std::vector<std::pair<int, double>> kernels_s, int from, int to,
                                  double send_s, double g) {
  program::Plan plan;
  plan.ranks.resize(static_cast<std::size_t>(ranks));
  plan.interference = {1.0, g};
  for (const auto& [rank, seconds] : kernels_s)
    plan.ranks[static_cast<std::size_t>(rank)].add_compute(Stream::Compute, Category::Backward, "kernel", seconds);
  plan.ranks[static_cast<std::size_t>(from)].add_exchange(Stream::Comm, Category::DataParallelComm, "send",
                                                          {Transfer{to, send_s * kBandwidth_Bps, 1}}, {});
  plan.ranks[static_cast<std::size_t>(to)].add_exchange(Stream::Comm, Category::DataParallelComm, "recv", {},
                                                        {Transfer{from, send_s * kBandwidth_Bps, 1}});
  return plan;
}

/// When the send of kernels_beside_send() ends.
double send_ends(const engine::SimulationResult& r, int from) { return r.ops[static_cast<std::size_t>(from)].back().end_s; }

}  // namespace

TEST_CASE("engine::simulate: a link between two computing devices is slowed until the last kernel ends",
          "[engine][framework]") {
  // One direct link joins the two devices; kernels of 2 s and 3 s on its ends keep it slow for
  // 3 s (3/g s of bytes moved), the other 4 - 3/g s at full speed.
  constexpr double g = 1.25;
  const auto mesh = topology::ClusterTopology::build(
      test::node_platform(clearfog::topology::node_topology("full-mesh"), 2, kBandwidth_Bps, 0));
  const auto r = engine::simulate_forked(mesh, kernels_beside_send(2, {{0, 2.0}, {1, 3.0}}, 0, 1, 4.0, g));
  CHECK(send_ends(r, 0) == Approx(3.0 + 4.0 - 3.0 / g).epsilon(1e-9));
}

TEST_CASE("engine::simulate: a kernel slows its own NIC, not one it shares", "[engine][framework]") {
  constexpr double g = 1.25;
  const config::LinkSpec nic{kBandwidth_Bps, 0}, fast{100 * kBandwidth_Bps, 0};
  // One device per node: the receiver's kernel slows its NIC, the transfer's bottleneck.
  const auto own = topology::ClusterTopology::build(test::fat_tree_cluster(2, 1, fast, 1, nic, fast));
  CHECK(send_ends(engine::simulate_forked(own, kernels_beside_send(2, {{1, 10.0}}, 0, 1, 4.0, g)), 0) ==
        Approx(4.0 * g).epsilon(1e-9));
  // Two devices per node, one NIC: device 1's kernel leaves device 0's transfer to node 1 alone.
  const auto shared = topology::ClusterTopology::build(test::fat_tree_cluster(2, 2, fast, 1, nic, fast));
  CHECK(send_ends(engine::simulate_forked(shared, kernels_beside_send(4, {{1, 10.0}}, 0, 2, 4.0, g)), 0) ==
        Approx(4.0).epsilon(1e-9));
}

TEST_CASE("engine::simulate: a background kernel slows the links too", "[engine][framework]") {
  constexpr double g = 1.25;
  auto plan = kernels_beside_send(3, {}, 0, 1, 4.0, g);
  plan.ranks[0].add_compute(Stream::Background, Category::Backward, "background kernel", 10.0);
  const auto r = engine::simulate_forked(kThree, plan);
  CHECK(r.ops[0][0].end_s == Approx(4.0 * g).epsilon(1e-9));
}

TEST_CASE("engine::simulate_legacy: refuses a plan whose collectives are slowed beside compute",
          "[engine][framework]") {
  CHECK(legacy_outcome(kThree, kernel_beside_send(0, 10.0, 4.0, {1.0, 1.25})) == "refused");
}

TEST_CASE("config::CollectiveCalibration: memory shared in proportion to demand slows both sides by 1 + share",
          "[config][framework]") {
  config::CollectiveCalibration c;
  CHECK(c.collective_slowdown() == 1.0);  // nothing given: exactly 1
  c.interference_units = 16;              // the collective keeps its own SMs: no effect on it
  CHECK(c.collective_slowdown() == 1.0);
  c.interference_memory_share = 0.3;      // a streaming kernel (demand H) beside 0.3 H: 1.3 H asked of H
  CHECK(c.collective_slowdown() == Approx(1.3));
  CHECK(c.compute_slowdown(108) == Approx(1.3));  // above 108/92 from the units
}
