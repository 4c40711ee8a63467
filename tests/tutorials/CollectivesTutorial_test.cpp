// The answers of docs/tutorials/03-collectives.md, asserted on the shipped platform files with the
// α–β reasoning the tutorial teaches (closed forms and orderings, never the program's output).
#include <catch2/catch.hpp>

#include <string>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "config/ConfigLoader.hpp"
#include "driver/CollectiveRun.hpp"

using namespace clearfog;

namespace {

constexpr double KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

config::PlatformSpec platform(const std::string& file) {
  return config::load_platform(std::string(CLEARFOG_SOURCE_DIR) + "/platforms/" + file);
}

driver::CollectiveTiming all_reduce(const topology::ClusterTopology& cluster, config::CollectiveAlgorithm algorithm,
                                    double bytes) {
  const driver::CollectiveCase c{config::CollectiveOp::AllReduce, algorithm, std::nullopt, config::Fidelity::Step,
                                 cluster.device_count(), bytes, {}};
  return driver::measure_collective(cluster, c);
}

}  // namespace

TEST_CASE("tutorial 3: a ring over 64 GPUs is latency-bound below a megabyte — a tree wins there, the ring at 1 GiB",
          "[tutorials][simulation]") {
  const auto spec = platform("dgx-a100-8nodes.yaml");
  const auto cluster = topology::ClusterTopology::build(spec);
  const int n = cluster.device_count();
  REQUIRE(n == 64);
  const auto ring_1k = all_reduce(cluster, collectives::collective_algorithm("ring"), KiB);
  const auto ring_64k = all_reduce(cluster, collectives::collective_algorithm("ring"), 64 * KiB);

  // Q1: 2(n-1) steps, each at least one route's latency; 63 KiB more adds at most its bytes twice
  // over one NIC (the α–β model's β term with a single channel).
  const double alpha_s = driver::step_latency_s(cluster, driver::collective_members(cluster, n));
  CHECK(ring_1k.time_s >= 2.0 * (n - 1) * alpha_s);
  CHECK(ring_64k.time_s - ring_1k.time_s <= 2.0 * 63 * KiB / spec.fabric.nic.bandwidth_Bps);

  // Q2: the tree's depth is logarithmic across nodes, the ring's steps linear in n.
  for (const double bytes : {KiB, 64 * KiB, 1 * MiB}) {
    INFO(bytes << " B");
    CHECK(all_reduce(cluster, collectives::collective_algorithm("tree"), bytes).time_s < all_reduce(cluster, collectives::collective_algorithm("ring"), bytes).time_s);
  }
  const auto ring_1g = all_reduce(cluster, collectives::collective_algorithm("ring"), GiB);
  CHECK(ring_1g.time_s < all_reduce(cluster, collectives::collective_algorithm("tree"), GiB).time_s);

  // Q3: every ring crosses each node boundary once, so a node's eight NICs carry the ring together:
  // busbw exceeds one NIC and stays within eight.
  const double nics_per_node = spec.fabric.nic_count;
  CHECK(ring_1g.busbw_Bps > spec.fabric.nic.bandwidth_Bps);
  CHECK(ring_1g.busbw_Bps <= nics_per_node * spec.fabric.nic.bandwidth_Bps);
}

TEST_CASE("tutorial 3: NVLS on a DGX H100 beats the ring by 2(n-1)/n times the efficiencies' ratio",
          "[tutorials][simulation]") {
  // A ring all-reduce sends 2(n-1)/n of the buffer per GPU; with in-switch reduction each GPU sends
  // its buffer once up and receives the sum once down: time N/(B e_nvls) against
  // 2(n-1)/n N/(B e_ring). At 1 GiB the latencies are negligible.
  const auto spec = platform("dgx-h100.yaml");
  const auto cluster = topology::ClusterTopology::build(spec);
  const int n = cluster.device_count();
  const auto ring = all_reduce(cluster, clearfog::collectives::collective_algorithm("ring"), GiB);
  const auto nvls = all_reduce(cluster, clearfog::collectives::collective_algorithm("in-switch"), GiB);
  const double expected = 2.0 * (n - 1) / n * spec.collectives.in_switch_efficiency / spec.collectives.simple.efficiency;
  CHECK(nvls.busbw_Bps / ring.busbw_Bps == Approx(expected).epsilon(0.05));
  CHECK(nvls.time_s < ring.time_s);
}
