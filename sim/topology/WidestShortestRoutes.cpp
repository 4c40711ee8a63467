#include "topology/WidestShortestRoutes.hpp"

#include <algorithm>
#include <limits>
#include <queue>
#include <set>
#include <utility>

namespace clearfog::topology {
namespace {

// Which vertices may be intermediate hops of a path. A path either crosses switches only or
// devices only: devices act as routers in switchless nodes (a ring's traffic does pass through the
// intermediate devices' links), but never next to a switch that should carry the traffic.
enum class Forwarding { Switches, Devices };

struct Neighbour {
  Vertex vertex;
  std::size_t edge_index;
};

struct Candidate {
  double width_Bps = 0;  // bottleneck bandwidth; 0 = unreachable
  std::vector<Hop> hops;
};

class Search {
public:
  Search(const Graph& graph, const std::vector<Link>& links, Vertex source)
      : graph_(graph), links_(links), source_(source), adjacency_(boost::num_vertices(graph)) {
    for (auto [it, end] = boost::edges(graph); it != end; ++it) {
      const std::size_t index = graph[*it].index;
      adjacency_[links[index].from].push_back({links[index].to, index});
      adjacency_[links[index].to].push_back({links[index].from, index});
    }
    // Neighbours in vertex order: the first path a search meets is the lowest-index one.
    for (auto& list : adjacency_)
      std::sort(list.begin(), list.end(), [](const Neighbour& a, const Neighbour& b) {
        return a.vertex != b.vertex ? a.vertex < b.vertex : a.edge_index < b.edge_index;
      });
  }

  /// Best path to every vertex under one forwarding rule.
  std::vector<Candidate> run(Forwarding forwarding) const {
    const std::vector<double> widest = widest_bandwidths(forwarding);
    std::vector<Candidate> best(widest.size());
    // Maximising the bottleneck and then minimising hops is not a label Dijkstra can settle in one
    // pass (a wider but longer prefix can end up behind a narrower, shorter one once a thin link
    // is appended). So: first the widest bottleneck W(v) of each vertex, then, for each distinct W,
    // a breadth-first search over the links at least that wide gives the fewest hops.
    std::set<double> thresholds(widest.begin(), widest.end());
    thresholds.erase(0.0);
    for (double threshold : thresholds) {
      const std::vector<Candidate> paths = shortest_paths(forwarding, threshold);
      for (std::size_t v = 0; v < widest.size(); ++v)
        if (widest[v] == threshold) best[v] = Candidate{threshold, paths[v].hops};
    }
    return best;
  }

  /// The path of the one link joining the source to `v`, if there is one (devices' neighbours).
  [[nodiscard]] Candidate direct(Vertex v) const {
    for (const Neighbour& nb : adjacency_[source_])
      if (nb.vertex == v) {
        const Link& link = links_[nb.edge_index];
        return Candidate{link.bandwidth_Bps, {Hop{nb.edge_index, link.from == source_}}};
      }
    return {};
  }

private:
  [[nodiscard]] bool forwards(Vertex v, Forwarding forwarding) const {
    if (v == source_) return true;
    const bool is_switch = graph_[v].kind == VertexKind::Switch;
    return forwarding == Forwarding::Switches ? is_switch : !is_switch;
  }

  /// Largest bottleneck bandwidth from the source to each vertex (max-min Dijkstra).
  std::vector<double> widest_bandwidths(Forwarding forwarding) const {
    const std::size_t n = adjacency_.size();
    std::vector<double> width(n, 0.0);
    std::vector<char> settled(n, 0);
    using Entry = std::pair<double, Vertex>;
    auto worse = [](const Entry& a, const Entry& b) { return a.first != b.first ? a.first < b.first : a.second > b.second; };
    std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> queue(worse);
    width[source_] = std::numeric_limits<double>::infinity();
    queue.push({width[source_], source_});
    while (!queue.empty()) {
      const auto [w, u] = queue.top();
      queue.pop();
      if (settled[u]) continue;
      settled[u] = 1;
      if (!forwards(u, forwarding)) continue;  // reached as an endpoint, but not a hop
      for (const Neighbour& nb : adjacency_[u]) {
        const double through = std::min(w, links_[nb.edge_index].bandwidth_Bps);
        if (through > width[nb.vertex]) {
          width[nb.vertex] = through;
          queue.push({through, nb.vertex});
        }
      }
    }
    width[source_] = 0.0;  // not a destination
    return width;
  }

  /// Fewest-hop paths over links of at least `min_width_Bps` (level-by-level BFS, each level in
  /// vertex order, so a vertex's predecessor is the lowest-index one of the previous level).
  std::vector<Candidate> shortest_paths(Forwarding forwarding, double min_width_Bps) const {
    const std::size_t n = adjacency_.size();
    std::vector<char> reached(n, 0);
    std::vector<Hop> via(n, Hop{0, true});
    std::vector<Vertex> parent(n, source_);
    reached[source_] = 1;
    std::vector<Vertex> frontier{source_};
    while (!frontier.empty()) {
      std::vector<Vertex> next;
      for (Vertex u : frontier) {
        if (!forwards(u, forwarding)) continue;
        for (const Neighbour& nb : adjacency_[u]) {
          const Link& link = links_[nb.edge_index];
          if (reached[nb.vertex] || link.bandwidth_Bps < min_width_Bps) continue;
          reached[nb.vertex] = 1;
          parent[nb.vertex] = u;
          via[nb.vertex] = Hop{nb.edge_index, link.from == u};
          next.push_back(nb.vertex);
        }
      }
      std::sort(next.begin(), next.end());
      frontier = std::move(next);
    }
    std::vector<Candidate> paths(n);
    for (Vertex v = 0; v < n; ++v) {
      if (!reached[v] || v == source_) continue;
      for (Vertex w = v; w != source_; w = parent[w]) paths[v].hops.push_back(via[w]);
      std::reverse(paths[v].hops.begin(), paths[v].hops.end());
    }
    return paths;
  }

  const Graph& graph_;
  const std::vector<Link>& links_;
  Vertex source_;
  std::vector<std::vector<Neighbour>> adjacency_;
};

}  // namespace

RoutesFrom widest_shortest_routes(const Graph& graph, const std::vector<Link>& links,
                                  const std::vector<Vertex>& devices, Vertex source) {
  const Search search(graph, links, source);
  const std::vector<Candidate> via_switches = search.run(Forwarding::Switches);
  const std::vector<Candidate> via_devices = search.run(Forwarding::Devices);
  RoutesFrom routes;
  routes.to.resize(devices.size());
  routes.reachable.assign(devices.size(), 0);
  for (std::size_t d = 0; d < devices.size(); ++d) {
    const Vertex v = devices[d];
    if (v == source) {
      routes.reachable[d] = 1;
      continue;
    }
    const Candidate& s = via_switches[v];
    // Two linked devices talk over their own link (CUDA peer-to-peer over NVLink), never through a
    // third device, even where a path of wider links through others exists (a DGX-1's one-brick pairs).
    const Candidate neighbour = search.direct(v);
    const Candidate& r = neighbour.width_Bps > 0 ? neighbour : via_devices[v];
    // Wider first, then fewer hops; on a full tie the path through switches (what they are for).
    const bool take_devices =
        r.width_Bps > s.width_Bps || (r.width_Bps == s.width_Bps && r.hops.size() < s.hops.size());
    const Candidate& best = take_devices ? r : s;
    if (best.width_Bps <= 0) continue;
    routes.reachable[d] = 1;
    routes.to[d] = best.hops;
  }
  return routes;
}

}  // namespace clearfog::topology
