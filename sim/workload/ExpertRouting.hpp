#pragma once
// Where a Mixture-of-Experts layer's tokens go (docs/moe.md): the share of the routed token slots
// each expert receives under a routing policy, and, for an expert-parallel group, the tokens each
// member sends each other member and the tokens each expert processes after capacity dropping.
// Pure functions: no engine, no kernels.
#include <vector>

#include "config/ScenarioSpec.hpp"

namespace clearfog::workload {

/// The share of the token slots (tokens x top_k) that each of `experts` experts receives in MoE
/// layer `moe_layer` (0 = the first MoE layer): balanced 1/E; zipf proportional to 1/r^s with the
/// ranks r = 1..E a seeded permutation per layer; trace the file's row (moe_layer modulo its rows).
/// A token picks k distinct experts, so no share exceeds 1/k: larger ones are capped there and the
/// excess spread over the others in proportion (water filling). Sums to 1.
std::vector<double> expert_shares(const config::MoeSpec& moe, int experts, int top_k, int moe_layer);

/// The tokens of one expert-parallel group at one tensor rank.
struct RoutedTokens {
  /// sent[i][j]: token slots member i sends member j (the diagonal stays on the device).
  std::vector<std::vector<double>> sent;
  /// processed[j][e]: token slots local expert e of member j processes (after dropping), in whole
  /// copies that add up to the copies routed (largest-remainder rounding of the expected loads).
  std::vector<std::vector<double>> processed;
  double dropped_share = 0;  // of all token slots, dropped by the capacity limit
  /// member_share[j]: the share of the token slots member j's experts receive (before dropping).
  std::vector<double> member_share;
  /// Token slots member j receives, itself included.
  [[nodiscard]] double received(int j) const;
};

/// Routes `tokens_per_member` tokens of each of `ep` members with top-`top_k` routing over experts
/// with `shares`, the experts placed in contiguous blocks of E/ep per member. Every member's tokens
/// follow the same shares. `capacity_factor` > 0 caps each expert at capacity_factor x (its
/// balanced share of the group's slots) and drops the rest (GShard, Lepikhin et al. 2021);
/// 0 is dropless.
RoutedTokens route_tokens(const std::vector<double>& shares, int ep, double tokens_per_member, int top_k,
                          double capacity_factor);

/// The chance that a token's top-k experts include at least one of a set of experts that receives
/// `share` of the token slots, of `experts` in all: 1 - prod_{t<k} (1 - share / (1 - t/E)). Exact
/// for balanced routing, where it is 1 - C(E-s, k) / C(E, k) with share = s/E (k experts drawn
/// without replacement); other routings count the set's slots as if spread evenly over E/ep-sized
/// draws. DeepEP sends a token once to each device, and once to each node, it reaches.
double reach_probability(double share, int experts, int top_k);

/// What crosses the network in a de-duplicated all-to-all (DeepEP) per byte meant for other nodes'
/// members: sum over nodes of reach(node's share) over sum over members of reach(member's share).
/// `nodes` lists the members (indices into member_share) of each node.
double deduplicated_network_share(const std::vector<double>& member_share, const std::vector<std::vector<int>>& nodes,
                                  int experts, int top_k);

}  // namespace clearfog::workload
