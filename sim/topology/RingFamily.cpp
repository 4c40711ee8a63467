#include "topology/RingFamily.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>

namespace clearfog::topology {
namespace {

// Extensions the search may make over all speeds before it keeps what it has (NCCL bounds its own
// search by time, NCCL_SEARCH_TIMEOUT): far above what 16 members of the shipped node kinds need.
constexpr long kFamilySearchBudget = 2'000'000;
// Charging leaves a link at width - k * speed: compare with a relative tolerance.
constexpr double kSlack = 1e-9;

using Widths = std::vector<std::vector<double>>;
using Rings = std::vector<std::vector<int>>;

bool fits(const Widths& left, int a, int b, double speed_Bps) { return left[a][b] >= speed_Bps * (1 - kSlack); }

bool is_cycle(const Widths& left, const std::vector<int>& ring, double speed_Bps) {
  const std::size_t n = ring.size();
  for (std::size_t i = 0; i < n; ++i)
    if (!fits(left, ring[i], ring[(i + 1) % n], speed_Bps)) return false;
  return true;
}

/// The same cycle walked the other way, still starting at position 0.
std::vector<int> reversed(const std::vector<int>& ring) {
  std::vector<int> back{ring.front()};
  back.insert(back.end(), ring.rbegin(), ring.rend() - 1);
  return back;
}

/// The most rings a speed allows, searched as NCCL searches channels: depth-first over cycles, a
/// finished cycle charging its links and the search going on to the next ring, backtracking
/// across rings when the links left carry fewer. Rings after the fixed ones come in
/// lexicographic order (a set of rings is found once, not in every order).
class FamilySearch {
public:
  FamilySearch(Widths left, double speed_Bps, long& budget)
      : left_(std::move(left)), speed_Bps_(speed_Bps), budget_(budget) {}

  /// Keeps `ring` among the first rings if the links carry it.
  void try_fix(const std::vector<int>& ring) {
    if (!is_cycle(left_, ring, speed_Bps_)) return;
    charge(ring, -1);
    rings_.push_back(ring);
    best_ = rings_;
  }
  void search() { next_ring({}); }
  [[nodiscard]] const Rings& found() const { return best_; }

private:
  void charge(const std::vector<int>& ring, int sign) {
    for (std::size_t i = 0; i < ring.size(); ++i) left_[ring[i]][ring[(i + 1) % ring.size()]] += sign * speed_Bps_;
  }
  /// Rings every member can still start: its outgoing links' room, in rings.
  [[nodiscard]] int room() const {
    int least = kMaxFamilyRings;
    for (const auto& row : left_) {
      double out = 0;
      for (double w : row) out += std::max(w, 0.0);
      least = std::min(least, static_cast<int>(out / speed_Bps_ * (1 + kSlack)));
    }
    return least;
  }
  void next_ring(const std::vector<int>& previous) {
    if (rings_.size() > best_.size()) best_ = rings_;
    if (static_cast<int>(rings_.size()) >= kMaxFamilyRings || budget_ < 0) return;
    if (static_cast<int>(rings_.size()) + room() <= static_cast<int>(best_.size())) return;
    std::vector<int> path{0};
    std::vector<char> used(left_.size(), 0);
    used[0] = 1;
    extend(path, used, previous, true);
  }
  /// Extends `path`; `tight`: it equals `previous` so far, so the next member may not come before.
  void extend(std::vector<int>& path, std::vector<char>& used, const std::vector<int>& previous, bool tight) {
    if (--budget_ < 0) return;
    const int n = static_cast<int>(left_.size()), last = path.back();
    if (static_cast<int>(path.size()) == n) {
      if (!fits(left_, last, 0, speed_Bps_)) return;
      charge(path, -1);
      rings_.push_back(path);
      next_ring(path);
      rings_.pop_back();
      charge(path, +1);
      return;
    }
    const int from = tight && !previous.empty() ? previous[path.size()] : 1;
    for (int next = from; next < n && budget_ >= 0; ++next) {
      if (used[next] || !fits(left_, last, next, speed_Bps_)) continue;
      used[next] = 1;
      path.push_back(next);
      extend(path, used, previous, tight && !previous.empty() && next == previous[path.size() - 1]);
      path.pop_back();
      used[next] = 0;
    }
  }

  Widths left_;
  double speed_Bps_;
  Rings rings_;
  Rings best_;
  long& budget_;  // shared by the speeds of one family
};

/// The rings at one speed: the members' own order and its reverse first when they fit (the order
/// the caller chose stays the first channel's), then, with `search`, as many more as fit.
Rings rings_at(const Widths& width, double speed_Bps, bool search, long& budget) {
  FamilySearch family(width, speed_Bps, budget);
  std::vector<int> own(width.size());
  std::iota(own.begin(), own.end(), 0);
  family.try_fix(own);
  family.try_fix(reversed(own));
  if (search) family.search();
  return family.found();
}

}  // namespace

std::vector<int> hamiltonian_cycle(const std::vector<std::vector<double>>& width_Bps, double min_Bps, long budget) {
  const int n = static_cast<int>(width_Bps.size());
  std::vector<int> path{0};
  std::vector<char> used(static_cast<std::size_t>(n), 0);
  used[0] = 1;
  std::function<bool()> extend = [&]() -> bool {
    if (--budget < 0) return false;
    const int last = path.back();
    if (static_cast<int>(path.size()) == n) return width_Bps[last][0] >= min_Bps;
    for (int next = 1; next < n; ++next) {
      if (used[next] || width_Bps[last][next] < min_Bps) continue;
      used[next] = 1;
      path.push_back(next);
      if (extend()) return true;
      path.pop_back();
      used[next] = 0;
    }
    return false;
  };
  return n > 0 && extend() ? path : std::vector<int>{};
}

RingFamily ring_family(const std::vector<std::vector<double>>& width_Bps) {
  const int n = static_cast<int>(width_Bps.size());
  if (n < 3) return {};
  if (n > kRingFamilyMaxMembers) {
    // No search: the own order (a snake on a torus) and its reverse, at its narrowest link.
    double narrowest = width_Bps[n - 1][0];
    for (int i = 0; i + 1 < n; ++i) narrowest = std::min(narrowest, width_Bps[i][i + 1]);
    if (!(narrowest > 0)) return {};
    long budget = kFamilySearchBudget;
    return {rings_at(width_Bps, narrowest, false, budget), narrowest};
  }
  // NCCL tries a ladder of speeds; here every link width and its half (two rings sharing a link
  // each way can beat one).
  std::set<double, std::greater<>> speeds;
  for (const auto& row : width_Bps)
    for (double w : row)
      if (w > 0) speeds.insert({w, w / 2});
  RingFamily best;
  long budget = kFamilySearchBudget;
  for (double speed : speeds) {  // widest first: a tie keeps fewer, faster rings
    // No more rings than a member has room to send: skip a speed that cannot beat the best found.
    double room = kMaxFamilyRings;
    for (const auto& row : width_Bps) {
      double rings_out = 0;
      for (double w : row) rings_out += std::floor(w / speed * (1 + kSlack));
      room = std::min(room, rings_out);
    }
    if (room * speed <= static_cast<double>(best.rings.size()) * best.ring_Bps * (1 + kSlack)) continue;
    auto rings = rings_at(width_Bps, speed, true, budget);
    if (static_cast<double>(rings.size()) * speed > static_cast<double>(best.rings.size()) * best.ring_Bps * (1 + kSlack))
      best = {std::move(rings), speed};
  }
  return best;
}

}  // namespace clearfog::topology
