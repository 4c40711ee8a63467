#pragma once
// Helpers shared by the collective tests: requests over ranks 0 … p-1, the bytes and steps a
// plan gives each rank, and a simulated run on a platform built in code.
#include <numeric>

#include "collectives/Collective.hpp"
#include "engine/ForkedRun.hpp"
#include "support/TestPlatforms.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::test {

inline collectives::CollectiveRequest collective(config::CollectiveOp op, config::CollectiveAlgorithm algorithm,
                                                 int p, double bytes) {
  collectives::CollectiveRequest r;
  r.op = op;
  r.algorithm = algorithm;
  r.ranks.resize(p);
  std::iota(r.ranks.begin(), r.ranks.end(), 0);
  r.bytes = bytes;
  r.name = "c";
  return r;
}

/// A plan of `endpoints` ranks (default: the members) holding only this collective.
inline program::Plan plan_of(const collectives::CollectiveRequest& r, int endpoints = 0) {
  program::Plan plan;
  plan.ranks.resize(endpoints > 0 ? endpoints : static_cast<int>(r.ranks.size()));
  collectives::TagAllocator tags;
  collectives::append_collective(plan, r, tags);
  return plan;
}

inline double bytes_sent(const program::Plan& plan, int rank) {
  double sum = 0;
  for (const auto& op : plan.ranks[rank].ops())
    for (const auto& t : op.sends) sum += t.bytes;
  return sum;
}

inline double bytes_received(const program::Plan& plan, int rank) {
  double sum = 0;
  for (const auto& op : plan.ranks[rank].ops())
    for (const auto& t : op.recvs) sum += t.bytes;
  return sum;
}

inline int exchanges(const program::Plan& plan, int rank) {
  int count = 0;
  for (const auto& op : plan.ranks[rank].ops()) count += op.kind == program::OpKind::Exchange;
  return count;
}

/// Simulated time of the collective alone on `platform`.
inline double simulated_s(const config::PlatformSpec& platform, const collectives::CollectiveRequest& r) {
  const auto cluster = topology::ClusterTopology::build(platform);
  return engine::simulate_forked(cluster, plan_of(r, cluster.endpoint_count())).makespan_s;
}

// The ideal platform of the closed-form tests: a non-blocking switch, so a device-to-device
// message crosses two links: α = 2·link latency, β = 1/bandwidth.
inline constexpr double kBandwidth_Bps = 100e9;
inline constexpr double kLinkLatency_s = 1e-6;
inline constexpr double kAlpha_s = 2 * kLinkLatency_s;
inline constexpr double kBeta_sPerB = 1 / kBandwidth_Bps;

inline config::PlatformSpec ideal_switch(int devices) {
  return switch_platform(devices, kBandwidth_Bps, kLinkLatency_s);
}

}  // namespace clearfog::test
