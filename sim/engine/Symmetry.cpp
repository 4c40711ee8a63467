#include "engine/Symmetry.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <limits>
#include <numeric>
#include <unordered_map>

#include "program/PlanSymmetry.hpp"

namespace sg4 = simgrid::s4u;

namespace clearfog::engine {
namespace {

constexpr std::uint32_t kUnset = std::numeric_limits<std::uint32_t>::max();

std::uint64_t pair_key(int a, int b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
}

class UnionFind {
public:
  explicit UnionFind(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);  // the root is the smallest member
  }

private:
  std::vector<std::uint32_t> parent_;
};

/// The routes the plan uses: one per ordered pair of ranks that exchange, as ids of links.
class RouteTable {
public:
  RouteTable(const program::Plan& plan, const std::vector<sg4::Host*>& hosts) {
    std::vector<sg4::Link*> route;
    std::vector<int> seen_by(static_cast<std::size_t>(plan.rank_count()), -1);  // [peer] the last rank that sent it
    for (int x = 0; x < plan.rank_count(); ++x) {
      const auto& p = plan.ranks[x];
      for (program::OpIndex i = 0; i < p.size(); ++i)
        for (std::uint32_t k = p.transfer_begin(i); k < p.sends_end(i); ++k) {
          const int peer = p.peer(k);
          if (seen_by[peer] == x) continue;  // a pair is routed once
          seen_by[peer] = x;
          if (!by_pair_.emplace(pair_key(x, peer), static_cast<std::uint32_t>(pairs_.size())).second) continue;
          pairs_.emplace_back(x, peer);
          route.clear();
          double latency = 0;
          hosts[x]->route_to(hosts[peer], route, &latency);
          offsets_.push_back(static_cast<std::uint32_t>(ids_.size()));
          for (sg4::Link* l : route) ids_.push_back(link_id(l));
        }
    }
    offsets_.push_back(static_cast<std::uint32_t>(ids_.size()));
  }

  [[nodiscard]] std::size_t size() const { return pairs_.size(); }
  [[nodiscard]] std::pair<int, int> pair(std::uint32_t r) const { return pairs_[r]; }
  [[nodiscard]] std::uint32_t route_of(int a, int b) const {
    const auto it = by_pair_.find(pair_key(a, b));
    return it == by_pair_.end() ? kUnset : it->second;
  }
  [[nodiscard]] program::Slice<std::uint32_t> links(std::uint32_t r) const {
    return {ids_.data() + offsets_[r], offsets_[r + 1] - offsets_[r]};
  }
  [[nodiscard]] std::size_t link_count() const { return links_.size(); }
  [[nodiscard]] sg4::Link* link(std::uint32_t id) const { return links_[id]; }

private:
  std::uint32_t link_id(sg4::Link* l) {
    const auto [it, added] = id_of_.emplace(l, static_cast<std::uint32_t>(links_.size()));
    if (added) links_.push_back(l);
    return it->second;
  }

  std::unordered_map<std::uint64_t, std::uint32_t> by_pair_;
  std::vector<std::pair<int, int>> pairs_;
  std::vector<std::uint32_t> offsets_;
  std::vector<std::uint32_t> ids_;
  std::vector<sg4::Link*> links_;
  std::unordered_map<sg4::Link*, std::uint32_t> id_of_;
};

bool same_link_model(const sg4::Link* a, const sg4::Link* b) {
  return a->get_bandwidth() == b->get_bandwidth() && a->get_latency() == b->get_latency() &&
         a->get_sharing_policy() == b->get_sharing_policy();
}

std::string describe_route(const RouteTable& routes, std::uint32_t r) {
  const auto [a, b] = routes.pair(r);
  return fmt::format("{} -> {} ({} links)", a, b, routes.links(r).size());
}

/// The map of the links that `image` induces through the routes, or why it is not one to one
/// between links of the same model.
std::string link_map(const RouteTable& routes, const std::vector<int>& image, std::vector<std::uint32_t>& psi) {
  psi.assign(routes.link_count(), kUnset);
  std::vector<std::uint32_t> inverse(routes.link_count(), kUnset);
  for (std::uint32_t r = 0; r < routes.size(); ++r) {
    const auto [a, b] = routes.pair(r);
    const std::uint32_t s = routes.route_of(image[a], image[b]);
    if (s == kUnset) return fmt::format("ranks {} and {} do not exchange, unlike {} and {}", image[a], image[b], a, b);
    const auto from = routes.links(r);
    const auto to = routes.links(s);
    if (from.size() != to.size())
      return fmt::format("the route {} maps onto {}", describe_route(routes, r), describe_route(routes, s));
    for (std::size_t i = 0; i < from.size(); ++i) {
      const std::uint32_t l = from[i];
      const std::uint32_t m = to[i];
      if ((psi[l] != kUnset && psi[l] != m) || (inverse[m] != kUnset && inverse[m] != l))
        return fmt::format("link {} would map onto two links (routes {} and {})", routes.link(l)->get_name(),
                           describe_route(routes, r), describe_route(routes, s));
      if (!same_link_model(routes.link(l), routes.link(m)))
        return fmt::format("link {} maps onto link {}, which differs in bandwidth, latency or sharing",
                           routes.link(l)->get_name(), routes.link(m)->get_name());
      psi[l] = m;
      inverse[m] = l;
    }
  }
  return {};
}

bool commute(const std::vector<int>& g, const std::vector<int>& h) {
  for (std::size_t x = 0; x < g.size(); ++x)
    if (g[h[x]] != h[g[x]]) return false;
  return true;
}

/// Rank classes under the generators; empty if some rank with ops has fewer images than the group
/// has elements (the group does not act freely).
std::vector<int> free_orbits(const program::Plan& plan, const std::vector<const std::vector<int>*>& generators,
                             long group_order) {
  const auto n = static_cast<std::size_t>(plan.rank_count());
  UnionFind classes(n);
  for (const auto* g : generators)
    for (std::size_t x = 0; x < n; ++x) classes.join(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>((*g)[x]));
  std::vector<long> size(n, 0);
  for (std::size_t x = 0; x < n; ++x) ++size[classes.find(static_cast<std::uint32_t>(x))];
  std::vector<int> representative(n, -1);
  for (std::size_t x = 0; x < n; ++x) {
    if (plan.ranks[x].empty()) continue;
    const std::uint32_t root = classes.find(static_cast<std::uint32_t>(x));
    if (size[root] != group_order) return {};
    representative[x] = static_cast<int>(root);
  }
  return representative;
}

struct Generator {
  const program::RankSymmetry* hint;
  int order;
  std::vector<std::uint32_t> psi;
};

/// Link classes under the kept generators, the routes of the representatives folded onto them.
std::string fold_routes(const RouteTable& routes, const std::vector<Generator>& kept, SymmetryReduction& out) {
  UnionFind classes(routes.link_count());
  for (const auto& g : kept)
    for (std::uint32_t l = 0; l < routes.link_count(); ++l) classes.join(l, g.psi[l]);
  std::vector<int> class_size(routes.link_count(), 0);
  for (std::uint32_t l = 0; l < routes.link_count(); ++l) ++class_size[classes.find(l)];
  for (std::uint32_t l = 0; l < routes.link_count(); ++l) {
    if (classes.find(l) != l) continue;
    if (out.group_order % class_size[l] != 0)
      return fmt::format("link {} has {} images, which does not divide the {} ranks of a class",
                         routes.link(l)->get_name(), class_size[l], out.group_order);
    if (class_size[l] < out.group_order) out.shared_links.emplace_back(routes.link(l), out.group_order / class_size[l]);
  }
  std::vector<std::uint32_t> seen(routes.link_count(), kUnset);
  for (std::uint32_t r = 0; r < routes.size(); ++r) {
    for (const std::uint32_t l : routes.links(r)) {
      if (seen[classes.find(l)] == r)
        return fmt::format("the route {} crosses two links of one class", describe_route(routes, r));
      seen[classes.find(l)] = r;
    }
    const auto [a, b] = routes.pair(r);
    if (out.representative[a] != a) continue;
    SymmetryReduction::Route folded{a, b, {}};
    for (const std::uint32_t l : routes.links(r)) folded.links.push_back(routes.link(classes.find(l)));
    out.routes.push_back(std::move(folded));
  }
  return {};
}

std::string join(const std::vector<std::string>& parts) {
  std::string text;
  for (const auto& p : parts) text += (text.empty() ? "" : "; ") + p;
  return text;
}

}  // namespace

SymmetryDecision prove_symmetry(const program::Plan& plan, const program::MessageIndex& index,
                                const std::vector<sg4::Host*>& hosts) {
  if (plan.symmetries.empty()) return {std::nullopt, "the planner gave no symmetry hint"};
  std::optional<RouteTable> routes;
  std::vector<Generator> kept;
  std::vector<std::string> refused;
  std::vector<int> representative;
  long order = 1;
  for (const auto& hint : plan.symmetries) {
    if (auto why = program::plan_symmetry_violation(plan, index, hint.image); !why.empty()) {
      refused.push_back(fmt::format("{} ranks are not isomorphic: {}", hint.axis, why));
      continue;
    }
    const int g_order = program::permutation_order(plan, hint.image, plan.rank_count());
    if (g_order < 2) continue;
    if (!routes) routes.emplace(plan, hosts);
    Generator g{&hint, g_order, {}};
    if (auto why = link_map(*routes, hint.image, g.psi); !why.empty()) {
      refused.push_back(fmt::format("{} ranks see different routes: {}", hint.axis, why));
      continue;
    }
    std::vector<const std::vector<int>*> images = {&hint.image};
    bool commutes = true;
    for (const auto& k : kept) {
      images.push_back(&k.hint->image);
      commutes = commutes && commute(k.hint->image, hint.image);
    }
    auto classes = commutes ? free_orbits(plan, images, order * g_order) : std::vector<int>{};
    if (classes.empty()) {
      refused.push_back(fmt::format("{} symmetry does not combine freely with the others", hint.axis));
      continue;
    }
    order *= g_order;
    representative = std::move(classes);
    kept.push_back(std::move(g));
  }
  if (kept.empty()) return {std::nullopt, join(refused)};

  SymmetryReduction reduction;
  reduction.group_order = static_cast<int>(order);
  reduction.representative = std::move(representative);
  for (const auto& g : kept) reduction.axes.push_back(fmt::format("{} x{}", g.hint->axis, g.order));
  if (auto why = fold_routes(*routes, kept, reduction); !why.empty()) return {std::nullopt, why};
  return {std::move(reduction), join(refused)};
}

}  // namespace clearfog::engine
