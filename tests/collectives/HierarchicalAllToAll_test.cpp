// Hierarchical all-to-all(-v): what crosses the network goes once to the destination node's rail
// peer, which forwards each member its part; de-duplication scales the network bytes only. The
// expected bytes are the schedule's definition (HierarchicalAllToAll.hpp) applied by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/Collective.hpp"
#include "collectives/CollectiveTestSupport.hpp"
#include "collectives/HierarchicalAllToAll.hpp"
#include "support/TopologyPlatforms.hpp"

using namespace clearfog;
using collectives::hierarchical_all_to_all_v_schedule;

namespace {

/// Member i sends member j (10 i + j + 1) bytes: every pair different, so every message is traceable.
std::vector<std::vector<double>> traceable(int p) {
  std::vector<std::vector<double>> m(p, std::vector<double>(p, 0.0));
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j)
      if (i != j) m[i][j] = 10.0 * i + j + 1;
  return m;
}

double sent(const collectives::Schedule& s, int from, int to, int round) {
  double b = 0;
  for (const auto& m : s.messages())
    if (m.from == from && m.to == to && m.round == round) b += m.bytes;
  return b;
}

}  // namespace

TEST_CASE("collectives::HierarchicalAllToAll: network once to the rail peer, then forwards", "[collectives]") {
  const int p = 6, m = 3;  // nodes {0,1,2} and {3,4,5}
  const auto matrix = traceable(p);
  const double share = 0.5, node_scale = 1.25;
  const auto s = hierarchical_all_to_all_v_schedule(matrix, m, share, node_scale);
  // Member 1 (node 0, local 1): inside its node straight to 0 and 2; to node 1 only through 4.
  CHECK(sent(s, 1, 0, 0) == Approx(node_scale * matrix[1][0]));
  CHECK(sent(s, 1, 2, 0) == Approx(node_scale * matrix[1][2]));
  CHECK(sent(s, 1, 4, 0) == Approx(share * (matrix[1][3] + matrix[1][4] + matrix[1][5])));
  CHECK(sent(s, 1, 3, 0) == 0);
  CHECK(sent(s, 1, 5, 0) == 0);
  // 4, member 1's rail peer on node 1, forwards what 1 meant for 3 and 5.
  CHECK(sent(s, 4, 3, 1) == Approx(node_scale * matrix[1][3]));
  CHECK(sent(s, 4, 5, 1) == Approx(node_scale * matrix[1][5]));
  // Network bytes in all: share x everything sent across nodes.
  double across = 0, network = 0;
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j)
      if (i / m != j / m) across += matrix[i][j];
  for (const auto& msg : s.messages())
    if (msg.from / m != msg.to / m) network += msg.bytes;
  CHECK(network == Approx(share * across));
  CHECK(s.rounds() == 2);
}

TEST_CASE("collectives::HierarchicalAllToAll: refuses uneven nodes and shares outside 0 to 1", "[collectives]") {
  const auto matrix = traceable(6);
  CHECK_THROWS_WITH(hierarchical_all_to_all_v_schedule(matrix, 4), Catch::Contains("nodes of equal size"));
  CHECK_THROWS_WITH(hierarchical_all_to_all_v_schedule(matrix, 3, 0), Catch::Contains("network_share"));
  CHECK_THROWS_WITH(hierarchical_all_to_all_v_schedule(matrix, 3, 1.5), Catch::Contains("network_share"));
  CHECK(collectives::supports(config::CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("hierarchical")));
}

TEST_CASE("collectives::HierarchicalAllToAll: fluid time is the slower of the NIC and NVLink closed forms",
          "[collectives][simulation]") {
  // Two nodes of four devices, one NIC each (its own link, not the device's NVLink port), no
  // latencies. A device sends s·n/2 through its NIC (the other node's half of its buffer, once) and
  // moves 3n/8 to its node's devices directly plus 3n/8 of forwards over NVLink (and receives as
  // much): t = max(s·n / (2 B_nic), (3/4)·n / B_nvlink) (docs/collectives.md).
  constexpr double kNvlink_Bps = 100e9, kNic_Bps = 10e9, n = 800e6;
  const auto platform = test::fat_tree_cluster(2, 4, config::LinkSpec{kNvlink_Bps, 0}, 4, config::LinkSpec{kNic_Bps, 0},
                                               config::LinkSpec{1000e9, 0});
  for (const double share : {1.0, 0.5, 0.1}) {
    auto r = test::collective(config::CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("hierarchical"), 8, n);
    r.fidelity = config::Fidelity::Fluid;
    r.ranks_per_node = 4;
    r.network_share = share;
    const double expected_s = std::max(share * n / (2 * kNic_Bps), 0.75 * n / kNvlink_Bps);
    INFO("network share " << share);
    CHECK(test::simulated_s(platform, r) == Approx(expected_s).epsilon(1e-6));
  }
}
