#include "driver/ProtocolChoice.hpp"

#include <algorithm>

#include "core/Errors.hpp"
#include "driver/CollectiveRun.hpp"

namespace clearfog::driver {

double ring_step_bandwidth_Bps(const topology::ClusterTopology& cluster, const std::vector<int>& members) {
  const auto& fabric = cluster.platform().fabric;
  if (spans_nodes(cluster, members)) {
    int on_first_node = 0;
    for (int m : members) on_first_node += cluster.node_of(m) == cluster.node_of(members.front()) ? 1 : 0;
    const double nics = std::max(1, fabric.nic_count);
    return fabric.nic.bandwidth_Bps * std::min(nics, nics * on_first_node / cluster.devices_per_node());
  }
  double slowest = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const int a = members[i], b = members[(i + 1) % members.size()];
    if (a == b) continue;
    const double bw = cluster.node().route_bandwidth_Bps(cluster.local_index(a), cluster.local_index(b));
    slowest = slowest == 0 ? bw : std::min(slowest, bw);
  }
  return slowest;
}

double ring_time_estimate_s(const topology::ClusterTopology& cluster, config::CollectiveOp op,
                            const std::vector<int>& members, double bytes, const config::CollectiveProtocol& protocol) {
  const double p = static_cast<double>(members.size());
  if (p < 2) return 0;
  double steps = p - 1, per_step_B = bytes / p;
  switch (op) {
    case config::CollectiveOp::AllReduce: steps = 2 * (p - 1); break;
    case config::CollectiveOp::SendRecv:
      steps = 1;
      per_step_B = bytes;
      break;
    default: break;
  }
  const auto calibrated = calibrated_protocol(cluster, protocol, members);
  const double bandwidth = ring_step_bandwidth_Bps(cluster, members);
  if (!(calibrated.efficiency > 0) || !(bandwidth > 0))
    throw Error("ring_time_estimate_s: protocol efficiency and route bandwidth must be > 0");
  return steps * (step_latency_s(cluster, members) + calibrated.step_overhead_s) +
         steps * per_step_B / (calibrated.efficiency * bandwidth);
}

config::CollectiveProtocol fastest_protocol(const topology::ClusterTopology& cluster, config::CollectiveOp op,
                                            const std::vector<int>& members, double bytes) {
  const auto protocols = cluster.platform().collectives.protocols();
  config::CollectiveProtocol best = protocols.front();
  double best_s = ring_time_estimate_s(cluster, op, members, bytes, best);
  for (std::size_t i = 1; i < protocols.size(); ++i) {
    const double t = ring_time_estimate_s(cluster, op, members, bytes, protocols[i]);
    if (t < best_s) {
      best = protocols[i];
      best_s = t;
    }
  }
  return best;
}

}  // namespace clearfog::driver
