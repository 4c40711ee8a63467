// A ring collective uses both directions of direct links, as NCCL's channels do (their search
// finds the reverse ring once the forward one has used its direction of each link): on a ring of
// links of B per direction, a ring all-reduce of N bytes over p devices takes 2(p-1)/p · N / (2B),
// where a one-way ring would take twice that (docs/collectives.md).
#include <catch2/catch.hpp>

#include <string>

#include "topology/NodeTopologyType.hpp"
#include "collectives/CollectiveAlgorithmType.hpp"
#include "driver/CollectiveRun.hpp"
#include "support/TopologyPlatforms.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

double ring_time_s(const topology::ClusterTopology& c, CollectiveOp op, config::Fidelity fidelity, double bytes) {
  const driver::CollectiveCase k{op, clearfog::collectives::collective_algorithm("ring"), std::nullopt, fidelity, c.device_count(), bytes, {}};
  return driver::measure_collective(c, k).time_s;
}

}  // namespace

TEST_CASE("driver::ring collectives on a ring of links run both ways round", "[driver][simulation]") {
  const int p = 8;
  const double b = 50e9, latency_s = 1e-6;
  const auto ring = topology::ClusterTopology::build(test::node_platform(clearfog::topology::node_topology("ring"), p, b, latency_s));
  for (auto fidelity : {config::Fidelity::Step, config::Fidelity::Fluid}) {
    INFO(config::fidelity_name(fidelity));
    // Ideal collectives (no efficiency given): the bandwidth term, plus at most a latency per step.
    const double all_reduce = 2.0 * (p - 1) / p * kGiB / (2 * b);
    CHECK(ring_time_s(ring, CollectiveOp::AllReduce, fidelity, kGiB) == Approx(all_reduce).epsilon(0.01));
    const double all_gather = (p - 1.0) / p * kGiB / (2 * b);
    CHECK(ring_time_s(ring, CollectiveOp::AllGather, fidelity, kGiB) == Approx(all_gather).epsilon(0.01));
  }
}

TEST_CASE("driver::a ring through a switch gains nothing from a second direction", "[driver][simulation]") {
  // Each device's one port to the switch already carries a one-way ring's sends up and its
  // receives down: the all-reduce takes 2(p-1)/p · N / B.
  const int p = 8;
  const double b = 50e9;
  const auto node = topology::ClusterTopology::build(test::switch_platform(p, b, 1e-6));
  const double expected = 2.0 * (p - 1) / p * kGiB / b;
  CHECK(ring_time_s(node, CollectiveOp::AllReduce, config::Fidelity::Step, kGiB) == Approx(expected).epsilon(0.01));
}
