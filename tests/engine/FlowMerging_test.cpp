// Identical flows carried by one comm (engine/FlowMerging.hpp): where the route check allows it,
// every op keeps the times of the unmerged replay (relative difference < 1e-9); where a link carries
// comms of different counts, nothing is merged and the times are max-min's with one share per flow.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "driver/CollectiveRun.hpp"
#include "engine/ForkedRun.hpp"
#include "support/TestPlatforms.hpp"
#include "support/TopologyPlatforms.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;
using program::Transfer;

namespace {

engine::ReplayOptions merging(bool on) {
  engine::ReplayOptions o;
  o.merge_identical_flows = on;
  return o;
}

/// Largest relative difference between the two replays' op ends.
double worst_end_difference(const engine::SimulationResult& a, const engine::SimulationResult& b) {
  double worst = 0;
  for (std::size_t r = 0; r < a.ops.size(); ++r)
    for (std::size_t i = 0; i < a.ops[r].size(); ++i) {
      const double x = a.ops[r][i].end_s, y = b.ops[r][i].end_s;
      worst = std::max(worst, std::abs(x - y) / std::max(std::abs(y), 1e-30));
    }
  return worst;
}

/// Rank `from` sends rank `from + 1` two identical 100 MB transfers (tags `tag`, `tag + 1`), received
/// by one op, or by two ops one after the other.
void add_identical_pair(program::Plan& plan, int from, std::uint64_t tag, bool two_receiving_ops = false) {
  const Transfer first{from + 1, 100e6, tag}, second{from + 1, 100e6, tag + 1};
  plan.ranks[from].add_exchange(Stream::Comm, Category::DataParallelComm, "pair", {first, second}, {});
  const Transfer in_first{from, 100e6, tag}, in_second{from, 100e6, tag + 1};
  auto& receiver = plan.ranks[from + 1];
  if (two_receiving_ops) {
    receiver.add_exchange(Stream::Comm, Category::DataParallelComm, "first", {}, {in_first});
    receiver.add_exchange(Stream::Comm, Category::DataParallelComm, "second", {}, {in_second});
  } else {
    receiver.add_exchange(Stream::Comm, Category::DataParallelComm, "recv", {}, {in_first, in_second});
  }
}

}  // namespace

TEST_CASE("engine::simulate: a multi-node fluid ring merges its channels' identical flows and keeps every time",
          "[engine][simulation]") {
  // 4 nodes of 8 devices, a NIC each: the channels' rings rotate every node's block, so 7 of a
  // device's 8 channel flows go to the same neighbour over NVLink and the 8th leaves through its NIC.
  const auto cluster = topology::ClusterTopology::build(
      test::fat_tree_cluster(4, 8, {300e9, 1e-6}, 8, {25e9, 2e-6}, {50e9, 0.5e-6}));
  driver::CollectiveCase c;
  c.algorithm = clearfog::collectives::collective_algorithm("ring");
  c.fidelity = config::Fidelity::Fluid;
  c.ranks = 32;
  c.bytes = 256e6;
  const auto plan = driver::plan_collective(cluster, c);
  const auto plain = engine::simulate_forked(cluster, plan, merging(false));
  const auto merged = engine::simulate_forked(cluster, plan, merging(true));
  REQUIRE_THAT(merged.replay.detail, Catch::Contains("identical flows merged"));
  // Every transfer is still counted once; 8 rings of 32 flows became 32 NIC flows and 32 NVLink comms.
  CHECK(merged.replay.simulated_messages == plain.replay.simulated_messages);
  CHECK_THAT(merged.replay.detail, Catch::Contains("256 transfers in 64 comms"));
  CHECK(std::abs(merged.makespan_s - plain.makespan_s) <= 1e-9 * plain.makespan_s);
  CHECK(worst_end_difference(merged, plain) < 1e-9);
}

TEST_CASE("engine::simulate: identical flows stay apart where a link carries comms of different counts",
          "[engine][simulation]") {
  // Rank 0 sends rank 1 two identical 100 MB transfers, rank 2 sends it one: all three share rank
  // 1's link, so each moves at a third of it and all end together. One comm for rank 0's pair would
  // take half the link and let rank 2's transfer end first, at 2/3 of the time.
  const auto cluster = topology::ClusterTopology::build(test::switch_platform(3, 100e9, 1e-6));
  program::Plan plan;
  plan.ranks.resize(3);
  plan.ranks[0].add_exchange(Stream::Comm, Category::DataParallelComm, "pair", {Transfer{1, 100e6, 1}, Transfer{1, 100e6, 2}},
                             {});
  plan.ranks[2].add_exchange(Stream::Comm, Category::DataParallelComm, "one", {Transfer{1, 100e6, 3}}, {});
  plan.ranks[1].add_exchange(Stream::Comm, Category::DataParallelComm, "all", {},
                             {Transfer{0, 100e6, 1}, Transfer{0, 100e6, 2}, Transfer{2, 100e6, 3}});
  const auto r = engine::simulate_forked(cluster, plan, merging(true));
  CHECK_THAT(r.replay.detail, Catch::Contains("identical flows not merged: link") &&
                                  Catch::Contains("carries comms of 2 and of 1 identical transfers"));
  CHECK(r.ops[2][0].end_s == Approx(r.ops[0][0].end_s).epsilon(1e-9));
  const double transfers_s = 3 * 100e6 / 100e9;
  CHECK(r.ops[2][0].end_s == Approx(transfers_s).epsilon(1e-2));  // plus two link latencies
}

TEST_CASE("engine::simulate: pairs of identical transfers on links of their own are merged and keep their times",
          "[engine][simulation]") {
  // Ranks 0 -> 1 and 2 -> 3, two identical 100 MB transfers each: each pair alone on its links.
  const auto cluster = topology::ClusterTopology::build(test::switch_platform(4, 100e9, 1e-6));
  program::Plan plan;
  plan.ranks.resize(4);
  add_identical_pair(plan, 0, 1);
  add_identical_pair(plan, 2, 3);
  const auto plain = engine::simulate_forked(cluster, plan, merging(false));
  const auto merged = engine::simulate_forked(cluster, plan, merging(true));
  CHECK_THAT(merged.replay.detail, Catch::Contains("4 transfers in 2 comms"));
  CHECK(worst_end_difference(merged, plain) < 1e-9);
  CHECK(merged.makespan_s == Approx(2 * 100e6 / 100e9).epsilon(1e-2));
}

TEST_CASE("engine::simulate: identical transfers are not merged where CM02's TCP-gamma bound could hold them back",
          "[engine][simulation]") {
  // 1 ms links: a comm's rate is bounded by gamma / (2 · 2 ms) = 1.05 GB/s, far below the 100 GB/s
  // link, so each of the two transfers moves at the bound; one comm of both would move at it too,
  // and take twice as long.
  const double link_latency_s = 1e-3;
  const auto cluster = topology::ClusterTopology::build(test::switch_platform(2, 100e9, link_latency_s));
  program::Plan plan;
  plan.ranks.resize(2);
  add_identical_pair(plan, 0, 1);
  const auto r = engine::simulate_forked(cluster, plan, merging(true));
  CHECK_THAT(r.replay.detail, Catch::Contains("identical flows not merged: the TCP-gamma rate bound"));
  const double route_latency_s = 2 * link_latency_s;
  const double bound_Bps = 4194304.0 / (2 * route_latency_s);  // SimGrid's default network/TCP-gamma
  CHECK(r.ops[0][0].end_s == Approx(route_latency_s + 100e6 / bound_Bps).epsilon(1e-6));
}

TEST_CASE("engine::simulate: transfers are identical only between the same two ops, and not beside a background job",
          "[engine][simulation]") {
  const auto cluster = topology::ClusterTopology::build(test::switch_platform(2, 100e9, 1e-6));
  program::Plan plan;
  plan.ranks.resize(2);
  // Received by two ops one after the other: one comm for both would hold the first op until the
  // second transfer is done too.
  add_identical_pair(plan, 0, 1, true);
  CHECK_THAT(engine::simulate_forked(cluster, plan, merging(true)).replay.detail,
             Catch::Contains("identical flows not merged: no identical transfers"));

  program::Plan background;
  background.ranks.resize(2);
  add_identical_pair(background, 0, 1);
  background.ranks[1].add_compute(Stream::Background, Category::Forward, "other job", 1e-3);
  CHECK_THAT(engine::simulate_forked(cluster, background, merging(true)).replay.detail,
             Catch::Contains("identical flows not merged: a background stream"));
}
