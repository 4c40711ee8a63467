// Token routing of MoE layers against closed forms: balanced shares, Zipf's law, the top-k cap,
// capacity dropping and the all-to-all traffic they imply (docs/moe.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "workload/ExpertRouting.hpp"

using namespace clearfog;

namespace {

config::MoeSpec zipf(double s, std::uint64_t seed = 7) {
  config::MoeSpec m;
  m.routing = config::Routing::Zipf;
  m.zipf_exponent = s;
  m.seed = seed;
  return m;
}

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

}  // namespace

TEST_CASE("workload::ExpertRouting: balanced routing sends (ep-1)/ep of the copies away", "[workload][moe]") {
  const int E = 64, ep = 8, k = 8;
  const double T = 4096;
  const auto shares = workload::expert_shares(config::MoeSpec{}, E, k, 0);
  for (const double s : shares) CHECK(s == Approx(1.0 / E));
  const auto r = workload::route_tokens(shares, ep, T, k, 0);
  for (int i = 0; i < ep; ++i) {
    for (int j = 0; j < ep; ++j) CHECK(r.sent[i][j] == Approx(T * k / ep));
    CHECK(r.received(i) == Approx(T * k));
    for (const double p : r.processed[i]) CHECK(p == Approx(ep * T * k / E));
  }
  CHECK(r.dropped_share == 0);
}

TEST_CASE("workload::ExpertRouting: zipf shares are 1/r^s over a seeded permutation", "[workload][moe]") {
  const int E = 32;
  for (const double s : {0.5, 1.0, 1.2}) {
    auto shares = workload::expert_shares(zipf(s), E, 1, 0);
    CHECK(sum(shares) == Approx(1.0));
    double harmonic = 0;  // generalized harmonic number H(E, s)
    for (int r = 1; r <= E; ++r) harmonic += std::pow(r, -s);
    std::sort(shares.begin(), shares.end(), std::greater<>());
    for (int r = 1; r <= E; ++r) CHECK(shares[r - 1] == Approx(std::pow(r, -s) / harmonic));
  }
  // The same seed and layer give the same placement; another layer another one.
  CHECK(workload::expert_shares(zipf(1), E, 1, 3) == workload::expert_shares(zipf(1), E, 1, 3));
  CHECK(workload::expert_shares(zipf(1), E, 1, 3) != workload::expert_shares(zipf(1), E, 1, 4));
}

TEST_CASE("workload::ExpertRouting: no expert takes more than 1/k of the copies", "[workload][moe]") {
  // E = 4, s = 2: the top expert would take 1/(1 + 1/4 + 1/9 + 1/16) = 0.70 of the copies, but a
  // token visits k = 2 different experts, so at most half of the copies go to any one of them.
  const auto shares = workload::expert_shares(zipf(2), 4, 2, 0);
  CHECK(sum(shares) == Approx(1.0));
  CHECK(*std::max_element(shares.begin(), shares.end()) == Approx(0.5));
  // The excess is spread in proportion: the others keep their ratios 1/4 : 1/9 : 1/16.
  auto sorted = shares;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  CHECK(sorted[1] / sorted[2] == Approx(9.0 / 4.0));
  CHECK(sorted[2] / sorted[3] == Approx(16.0 / 9.0));
}

TEST_CASE("workload::ExpertRouting: capacity drops the copies above c x the balanced load", "[workload][moe]") {
  const int E = 16, ep = 4, k = 2;
  const double T = 1000, c = 1.25;
  const auto shares = workload::expert_shares(zipf(1.0), E, k, 0);
  const auto r = workload::route_tokens(shares, ep, T, k, c);
  double dropped = 0;
  for (const double s : shares) dropped += std::max(0.0, s - c / E);
  CHECK(r.dropped_share == Approx(dropped));
  const double capacity = c * ep * T * k / E;
  for (const auto& rank : r.processed)
    for (const double p : rank) CHECK(p <= std::ceil(capacity));
  // What is not dropped is processed.
  double processed = 0;
  for (const auto& rank : r.processed) processed += sum(rank);
  CHECK(std::abs(processed - ep * T * k * (1 - dropped)) <= 0.5);  // whole copies
}

TEST_CASE("workload::ExpertRouting: a trace gives each layer its row, cycling", "[workload][moe]") {
  config::MoeSpec m;
  m.routing = config::Routing::Trace;
  m.trace = {{0.4, 0.3, 0.2, 0.1}, {0.1, 0.2, 0.3, 0.4}};
  const auto first = workload::expert_shares(m, 4, 1, 0), fourth = workload::expert_shares(m, 4, 1, 3);
  for (std::size_t e = 0; e < 4; ++e) {
    CHECK(first[e] == Approx(m.trace[0][e]));
    CHECK(fourth[e] == Approx(m.trace[1][e]));
  }
  CHECK_THROWS(workload::expert_shares(m, 8, 1, 0));
  // Expert ranks hold contiguous blocks: rank 0 has experts 0 and 1 (0.7 of the copies).
  const auto r = workload::route_tokens(m.trace[0], 2, 100, 1, 0);
  CHECK(r.received(0) == Approx(2 * 100 * 0.7));
  CHECK(r.sent[1][0] == Approx(100 * 0.7));
}

namespace {

/// C(n, k) / C(m, k) as the product prod_{t<k} (n - t) / (m - t).
double binomial_ratio(double n, double m, int k) {
  double r = 1;
  for (int t = 0; t < k; ++t) r *= (n - t) / (m - t);
  return r;
}

}  // namespace

TEST_CASE("workload::ExpertRouting: a token reaches a set of experts with the hypergeometric chance",
          "[workload][moe]") {
  // Balanced: a set of s of E experts holds s/E of the slots; top-k picks k distinct experts, so
  // the set is missed with probability C(E - s, k) / C(E, k).
  const int E = 256, k = 8;
  for (const double s : {1.0, 8.0, 32.0, 128.0}) {
    INFO(s << " experts of " << E);
    CHECK(workload::reach_probability(s / E, E, k) == Approx(1 - binomial_ratio(E - s, E, k)));
  }
  CHECK(workload::reach_probability(0, E, k) == 0);
  CHECK(workload::reach_probability(1, E, k) == 1);
  // One expert: chosen with probability k / E, its share times k.
  CHECK(workload::reach_probability(1.0 / E, E, k) == Approx(static_cast<double>(k) / E));
  CHECK_THROWS(workload::reach_probability(0.5, 4, 8));
}

TEST_CASE("workload::ExpertRouting: DeepEP's network bytes per node over the per-device bytes", "[workload][moe]") {
  // 32 members of 8 experts each, on 4 nodes of 8: a token reaches a node (64 experts) with
  // 1 - C(192,8)/C(256,8), a device with 1 - C(248,8)/C(256,8); a node receives one copy where its
  // eight devices receive one each.
  const int E = 256, k = 8, members = 32;
  std::vector<double> member_share(members, 1.0 / members);
  std::vector<std::vector<int>> nodes(4);
  for (int j = 0; j < members; ++j) nodes[static_cast<std::size_t>(j / 8)].push_back(j);
  const double p_node = 1 - binomial_ratio(192, 256, k), p_gpu = 1 - binomial_ratio(248, 256, k);
  CHECK(workload::deduplicated_network_share(member_share, nodes, E, k) == Approx(p_node / (8 * p_gpu)));
  // top-1: every token reaches one device, so nothing is shared: the network carries it all.
  CHECK(workload::deduplicated_network_share(member_share, nodes, E, 1) == Approx(1));
  // route_tokens reports each member's share of the slots.
  const auto routed = workload::route_tokens(std::vector<double>(E, 1.0 / E), members, 100, k, 0);
  for (double share : routed.member_share) CHECK(share == Approx(1.0 / members));
}
