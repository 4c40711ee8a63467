#include "workload/ExpertRouting.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/Errors.hpp"

namespace clearfog::workload {

namespace {

/// A permutation of 0..n-1 from `seed`: Fisher-Yates driven by mt19937_64, whose output sequence
/// the C++ standard fixes (std::shuffle's use of it is implementation-defined).
std::vector<int> seeded_permutation(int n, std::uint64_t seed) {
  std::vector<int> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::mt19937_64 rng(seed);
  for (int i = n - 1; i > 0; --i) {
    const auto j = static_cast<int>(rng() % static_cast<std::uint64_t>(i + 1));
    std::swap(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(j)]);
  }
  return p;
}

/// Caps every share at `cap`, spreading the excess over the uncapped ones in proportion, until
/// none exceeds it (at most E rounds: each round caps at least one more).
void water_fill(std::vector<double>& share, double cap) {
  std::vector<bool> capped(share.size(), false);
  for (std::size_t round = 0; round < share.size(); ++round) {
    double excess = 0, free_total = 0;
    for (std::size_t e = 0; e < share.size(); ++e) {
      if (!capped[e] && share[e] > cap) {
        excess += share[e] - cap;
        share[e] = cap;
        capped[e] = true;
      }
      if (!capped[e]) free_total += share[e];
    }
    if (excess <= 0 || free_total <= 0) return;
    for (std::size_t e = 0; e < share.size(); ++e)
      if (!capped[e]) share[e] += excess * share[e] / free_total;
  }
}

/// Rounds every entry to a whole number of copies keeping the total (largest remainder): experts
/// process whole tokens, and the copies processed must still add up to the copies routed.
void round_keeping_total(std::vector<std::vector<double>>& m) {
  struct Entry {
    double remainder;
    std::size_t i, j;
  };
  std::vector<Entry> entries;
  double total = 0, floors = 0;
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < m[i].size(); ++j) {
      total += m[i][j];
      const double f = std::floor(m[i][j]);
      entries.push_back({m[i][j] - f, i, j});
      floors += f;
      m[i][j] = f;
    }
  // Largest remainders first; ties in index order, so the result is deterministic.
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.remainder > b.remainder; });
  const auto missing = static_cast<std::size_t>(std::llround(total - floors));
  for (std::size_t n = 0; n < missing && n < entries.size(); ++n) m[entries[n].i][entries[n].j] += 1;
}

}  // namespace

std::vector<double> expert_shares(const config::MoeSpec& moe, int experts, int top_k, int moe_layer) {
  if (experts < 1 || top_k < 1 || top_k > experts)
    throw Error(fmt::format("expert_shares: {} experts with top_k {}: need 1 <= top_k <= experts", experts, top_k));
  const auto E = static_cast<std::size_t>(experts);
  std::vector<double> share(E, 1.0 / experts);
  switch (moe.routing) {
    case config::Routing::Balanced: return share;
    case config::Routing::Zipf: {
      const auto rank = seeded_permutation(experts, moe.seed + static_cast<std::uint64_t>(moe_layer));
      for (std::size_t e = 0; e < E; ++e) share[e] = std::pow(rank[e] + 1.0, -moe.zipf_exponent);
      break;
    }
    case config::Routing::Trace: {
      if (moe.trace.empty()) throw Error("expert_shares: routing trace without rows");
      const auto& row = moe.trace[static_cast<std::size_t>(moe_layer) % moe.trace.size()];
      if (row.size() != E)
        throw Error(fmt::format("moe.trace {}: rows have {} loads, the model has {} experts", moe.trace_file,
                                row.size(), experts));
      share = row;
      break;
    }
  }
  const double total = std::accumulate(share.begin(), share.end(), 0.0);
  for (auto& s : share) s /= total;
  water_fill(share, 1.0 / top_k);
  return share;
}

double RoutedTokens::received(int j) const {
  double total = 0;
  for (const auto& row : sent) total += row[static_cast<std::size_t>(j)];
  return total;
}

RoutedTokens route_tokens(const std::vector<double>& shares, int ep, double tokens_per_member, int top_k,
                          double capacity_factor) {
  const auto E = shares.size();
  if (ep < 1 || E % static_cast<std::size_t>(ep) != 0)
    throw Error(fmt::format("route_tokens: {} experts cannot be split over {} expert-parallel ranks", E, ep));
  const std::size_t local = E / static_cast<std::size_t>(ep);
  const double member_slots = tokens_per_member * top_k;
  const double group_slots = member_slots * ep;
  // Each expert keeps min(load, capacity) of its slots; every member loses the same fraction.
  std::vector<double> kept(E, 1.0);
  double dropped = 0;
  if (capacity_factor > 0) {
    const double capacity = capacity_factor * group_slots / static_cast<double>(E);
    for (std::size_t e = 0; e < E; ++e) {
      const double load = group_slots * shares[e];
      if (load > capacity) {
        kept[e] = capacity / load;
        dropped += load - capacity;
      }
    }
  }
  RoutedTokens r;
  r.dropped_share = group_slots > 0 ? dropped / group_slots : 0;
  r.sent.assign(static_cast<std::size_t>(ep), std::vector<double>(static_cast<std::size_t>(ep), 0.0));
  r.processed.assign(static_cast<std::size_t>(ep), std::vector<double>(local, 0.0));
  r.member_share.assign(static_cast<std::size_t>(ep), 0.0);
  for (std::size_t e = 0; e < E; ++e) {
    const std::size_t owner = e / local;
    r.member_share[owner] += shares[e];
    const double from_each = member_slots * shares[e] * kept[e];
    for (auto& row : r.sent) row[owner] += from_each;
    r.processed[owner][e % local] = from_each * ep;
  }
  round_keeping_total(r.processed);
  return r;
}

double reach_probability(double share, int experts, int top_k) {
  if (experts < 1 || top_k < 1 || top_k > experts || !(share >= 0))
    throw Error(fmt::format("reach_probability: needs 1 <= top_k <= experts and a share >= 0, got top_k {}, {} "
                            "experts, share {}",
                            top_k, experts, share));
  double miss = 1;
  for (int t = 0; t < top_k; ++t) miss *= std::max(0.0, 1 - share / (1 - static_cast<double>(t) / experts));
  return 1 - miss;
}

double deduplicated_network_share(const std::vector<double>& member_share, const std::vector<std::vector<int>>& nodes,
                                  int experts, int top_k) {
  double per_node = 0, per_member = 0;
  for (const auto& node : nodes) {
    double share = 0;
    for (int j : node) {
      share += member_share.at(static_cast<std::size_t>(j));
      per_member += reach_probability(member_share.at(static_cast<std::size_t>(j)), experts, top_k);
    }
    per_node += reach_probability(std::min(share, 1.0), experts, top_k);
  }
  return per_member > 0 ? std::min(1.0, per_node / per_member) : 1.0;
}

}  // namespace clearfog::workload
