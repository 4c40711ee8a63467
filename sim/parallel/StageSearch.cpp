// Stage search for pipelines over devices of different kinds; the objective and the three
// searches are explained in docs/heterogeneous-pipelines.md.
#include "parallel/StageSearch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "core/Errors.hpp"

namespace clearfog::parallel {
namespace {

/// prefix[k][l]: time of layers [0, l) on kind k.
std::vector<std::vector<double>> prefix_times(const StageSearchProblem& p) {
  std::vector<std::vector<double>> prefix(p.layer_s.size());
  for (std::size_t k = 0; k < p.layer_s.size(); ++k) {
    prefix[k].assign(p.layer_s[k].size() + 1, 0.0);
    for (std::size_t l = 0; l < p.layer_s[k].size(); ++l) prefix[k][l + 1] = prefix[k][l] + p.layer_s[k][l];
  }
  return prefix;
}

/// The objective with the prefix sums at hand: one evaluation.
class Evaluator {
public:
  explicit Evaluator(const StageSearchProblem& p) : p_(p), prefix_(prefix_times(p)) {}
  /// Time of stage running layers [begin, end) on `kind`.
  [[nodiscard]] double stage_s(int kind, int begin, int end) const {
    const double compute = prefix_[kind][end] - prefix_[kind][begin];
    return compute + (end < p_.layers() ? p_.transfer_s[end - 1] : 0.0);
  }
  double operator()(const std::vector<int>& ends, const std::vector<int>& kinds) {
    evaluations += static_cast<std::int64_t>(ends.size());
    double worst = 0;
    for (std::size_t s = 0; s < ends.size(); ++s)
      worst = std::max(worst, stage_s(kinds[s], s == 0 ? 0 : ends[s - 1], ends[s]));
    return worst;
  }
  /// The best cut for stages of `kinds` in this order (exact, dynamic programming over the last
  /// layer of each stage); each cell is one stage time computed.
  std::pair<std::vector<int>, double> best_cut(const std::vector<int>& kinds) {
    const int S = static_cast<int>(kinds.size()), L = p_.layers();
    constexpr double kInf = std::numeric_limits<double>::infinity();
    std::vector<std::vector<double>> best(S, std::vector<double>(L + 1, kInf));
    std::vector<std::vector<int>> from(S, std::vector<int>(L + 1, 0));
    for (int e = 1; e <= L - S + 1; ++e, ++evaluations) best[0][e] = stage_s(kinds[0], 0, e);
    for (int s = 1; s < S; ++s)
      for (int e = s + 1; e <= L - (S - 1 - s); ++e)
        for (int b = s; b < e; ++b) {
          ++evaluations;
          const double t = std::max(best[s - 1][b], stage_s(kinds[s], b, e));
          if (t < best[s][e]) {
            best[s][e] = t;
            from[s][e] = b;
          }
        }
    std::vector<int> ends(S);
    ends[S - 1] = L;
    for (int s = S - 1; s > 0; --s) ends[s - 1] = from[s][ends[s]];
    return {ends, best[S - 1][L]};
  }
  std::int64_t evaluations = 0;  // stage times computed

private:
  const StageSearchProblem& p_;
  std::vector<std::vector<double>> prefix_;
};

/// Kinds from fastest (least total time over all layers) to slowest.
std::vector<int> kinds_by_speed(const StageSearchProblem& p) {
  std::vector<int> order(static_cast<std::size_t>(p.kinds()));
  std::iota(order.begin(), order.end(), 0);
  const auto total = [&](int k) { return std::accumulate(p.layer_s[k].begin(), p.layer_s[k].end(), 0.0); };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return total(a) < total(b); });
  return order;
}

/// The fastest devices, one per stage, fastest first.
std::vector<int> fastest_kinds(const StageSearchProblem& p) {
  std::vector<int> kinds;
  for (int k : kinds_by_speed(p))
    for (int d = 0; d < p.devices[k] && static_cast<int>(kinds.size()) < p.stages; ++d) kinds.push_back(k);
  return kinds;
}

/// Devices of each kind not yet running a stage.
std::vector<int> spare_devices(const StageSearchProblem& p, const std::vector<int>& kinds) {
  auto spare = p.devices;
  for (int k : kinds) --spare[k];
  return spare;
}

/// Calls `visit` with every sequence of `stages` kinds the device counts allow.
template <typename Visit>
void each_assignment(std::vector<int>& spare, std::vector<int>& kinds, int stages, Visit& visit) {
  if (static_cast<int>(kinds.size()) == stages) {
    visit(kinds);
    return;
  }
  for (std::size_t k = 0; k < spare.size(); ++k) {
    if (spare[k] == 0) continue;
    --spare[k];
    kinds.push_back(static_cast<int>(k));
    each_assignment(spare, kinds, stages, visit);
    kinds.pop_back();
    ++spare[k];
  }
}

/// Calls `visit` with every split of `layers` into `stages` non-empty runs (their ends).
template <typename Visit>
void each_split(std::vector<int>& ends, int layers, int stages, Visit& visit) {
  const int s = static_cast<int>(ends.size());
  if (s == stages - 1) {
    ends.push_back(layers);
    visit(ends);
    ends.pop_back();
    return;
  }
  const int begin = s == 0 ? 0 : ends.back();
  for (int e = begin + 1; e <= layers - (stages - 1 - s); ++e) {
    ends.push_back(e);
    each_split(ends, layers, stages, visit);
    ends.pop_back();
  }
}

double binomial(int n, int k) {
  double c = 1;
  for (int i = 0; i < k; ++i) c = c * (n - i) / (i + 1);
  return c;
}

/// 53 random bits as a double in [0, 1): the same sequence on every standard library.
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
int below(std::mt19937_64& rng, int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); }

/// One random move of the annealing: shift a cut, swap two stages' kinds, or give a stage a spare
/// device's kind. False when the drawn move is impossible from here.
bool random_move(const StageSearchProblem& p, std::mt19937_64& rng, std::vector<int>& ends, std::vector<int>& kinds) {
  const int S = p.stages;
  switch (below(rng, 3)) {
    case 0: {
      if (S < 2) return false;
      const int c = below(rng, S - 1);  // the cut after stage c
      const int lo = c == 0 ? 1 : ends[c - 1] + 1, hi = ends[c + 1] - 1;
      const int to = ends[c] + (below(rng, 2) == 0 ? -1 : 1);
      if (to < lo || to > hi) return false;
      ends[c] = to;
      return true;
    }
    case 1: {
      const int a = below(rng, S), b = below(rng, S);
      if (kinds[a] == kinds[b]) return false;
      std::swap(kinds[a], kinds[b]);
      return true;
    }
    default: {
      const auto spare = spare_devices(p, kinds);
      const int s = below(rng, S), k = below(rng, p.kinds());
      if (spare[k] == 0 || k == kinds[s]) return false;
      kinds[s] = k;
      return true;
    }
  }
}

/// A plan's stage times from the slowest down: plans compare by it lexicographically.
std::vector<double> stage_ranking(const Evaluator& evaluate, const std::vector<int>& ends,
                                  const std::vector<int>& kinds) {
  std::vector<double> times;
  for (std::size_t s = 0; s < ends.size(); ++s)
    times.push_back(evaluate.stage_s(kinds[s], s == 0 ? 0 : ends[s - 1], ends[s]));
  std::sort(times.begin(), times.end(), std::greater<>());
  return times;
}

/// Whether ranking `a` is better than `b` beyond rounding.
bool ranks_before(const std::vector<double>& a, const std::vector<double>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double tolerance = 1e-12 * std::max(a[i], b[i]);
    if (a[i] < b[i] - tolerance) return true;
    if (a[i] > b[i] + tolerance) return false;
  }
  return false;
}

}  // namespace

void check_problem(const StageSearchProblem& p) {
  const int L = p.layers(), K = p.kinds();
  if (L < 1 || K < 1) throw Error(fmt::format("stage search: needs layers and device kinds, got {} and {}", L, K));
  if (static_cast<int>(p.layer_s.size()) != K)
    throw Error(fmt::format("stage search: {} kinds of device but layer times for {}", K, p.layer_s.size()));
  for (const auto& row : p.layer_s) {
    if (static_cast<int>(row.size()) != L)
      throw Error(fmt::format("stage search: {} layers but a kind has times for {}", L, row.size()));
    for (double t : row)
      if (!(t >= 0) || !std::isfinite(t)) throw Error(fmt::format("stage search: layer time {} is not >= 0", t));
  }
  for (double t : p.transfer_s)
    if (!(t >= 0) || !std::isfinite(t)) throw Error(fmt::format("stage search: transfer time {} is not >= 0", t));
  int devices = 0;
  for (int d : p.devices) {
    if (d < 0) throw Error(fmt::format("stage search: {} devices of a kind", d));
    devices += d;
  }
  if (p.stages < 1 || p.stages > L || p.stages > devices)
    throw Error(fmt::format("stage search: {} stages need 1 to {} (the layers) and at most {} (the devices)", p.stages,
                            L, devices));
}

std::vector<double> stage_times(const StageSearchProblem& problem, const StagePlan& plan) {
  const Evaluator e(problem);
  std::vector<double> times;
  for (std::size_t s = 0; s < plan.ends.size(); ++s)
    times.push_back(e.stage_s(plan.kinds[s], s == 0 ? 0 : plan.ends[s - 1], plan.ends[s]));
  return times;
}

double bottleneck_s(const StageSearchProblem& problem, const StagePlan& plan) {
  const auto times = stage_times(problem, plan);
  return times.empty() ? 0.0 : *std::max_element(times.begin(), times.end());
}

SearchResult exhaustive_search(const StageSearchProblem& problem) {
  check_problem(problem);
  constexpr double kMaxPlans = 5e7;
  const double splits = binomial(problem.layers() - 1, problem.stages - 1);
  const double assignments = std::pow(static_cast<double>(problem.kinds()), problem.stages);
  if (splits * assignments > kMaxPlans)
    throw Error(fmt::format("stage search: exhaustive search over about {:.3g} plans (at most {:.0g}); use fewer "
                            "stages or layers",
                            splits * assignments, kMaxPlans));
  Evaluator evaluate(problem);
  SearchResult best;
  best.plan.bottleneck_s = std::numeric_limits<double>::infinity();
  auto spare = problem.devices;
  std::vector<int> kinds, ends;
  auto per_assignment = [&](const std::vector<int>& k) {
    auto per_split = [&](const std::vector<int>& e) {
      const double t = evaluate(e, k);
      if (t < best.plan.bottleneck_s) best.plan = {e, k, t};
    };
    each_split(ends, problem.layers(), problem.stages, per_split);
  };
  each_assignment(spare, kinds, problem.stages, per_assignment);
  best.evaluations = evaluate.evaluations;
  return best;
}

SearchResult annealing_search(const StageSearchProblem& problem, std::uint64_t seed, int steps) {
  check_problem(problem);
  Evaluator evaluate(problem);
  std::mt19937_64 rng(seed);
  std::vector<int> kinds = fastest_kinds(problem), ends(static_cast<std::size_t>(problem.stages));
  for (int s = 0; s < problem.stages; ++s) ends[s] = (s + 1) * problem.layers() / problem.stages;
  double current = evaluate(ends, kinds);
  SearchResult best{{ends, kinds, current}, 0};
  const double t0 = 0.1 * current, t_end = 1e-4 * current;
  for (int i = 0; i < steps && t0 > 0; ++i) {
    const double temperature = t0 * std::pow(t_end / t0, static_cast<double>(i) / steps);
    auto next_ends = ends;
    auto next_kinds = kinds;
    if (!random_move(problem, rng, next_ends, next_kinds)) continue;
    const double t = evaluate(next_ends, next_kinds);
    if (t <= current || unit(rng) < std::exp((current - t) / temperature)) {
      ends = std::move(next_ends);
      kinds = std::move(next_kinds);
      current = t;
      if (t < best.plan.bottleneck_s) best.plan = {ends, kinds, t};
    }
  }
  best.evaluations = evaluate.evaluations;
  return best;
}

namespace {

/// Steepest descent over which device runs which stage from `kinds`, each order of kinds with its
/// best cut: trade two stages' devices, or give a stage a spare device of another kind. Plans
/// compare by their stage times from the slowest down, so a move that relieves the second-slowest
/// stage while the bottleneck stays counts, and the search leaves plateaus.
StagePlan descend(const StageSearchProblem& problem, Evaluator& evaluate, std::vector<int> kinds) {
  auto ends = evaluate.best_cut(kinds).first;
  auto rank = stage_ranking(evaluate, ends, kinds);
  for (bool improved = true; improved;) {
    improved = false;
    auto best_kinds = kinds;
    auto best_ends = ends;
    auto best_rank = rank;
    const auto consider = [&](const std::vector<int>& candidate) {
      auto cut = evaluate.best_cut(candidate).first;
      auto r = stage_ranking(evaluate, cut, candidate);
      if (ranks_before(r, best_rank)) {
        best_kinds = candidate;
        best_ends = std::move(cut);
        best_rank = std::move(r);
      }
    };
    for (int a = 0; a < problem.stages; ++a)
      for (int b = a + 1; b < problem.stages; ++b)
        if (kinds[a] != kinds[b]) {
          auto swapped = kinds;
          std::swap(swapped[a], swapped[b]);
          consider(swapped);
        }
    const auto spare = spare_devices(problem, kinds);
    for (int s = 0; s < problem.stages; ++s)
      for (int k = 0; k < problem.kinds(); ++k)
        if (spare[k] > 0 && k != kinds[s]) {
          auto replaced = kinds;
          replaced[s] = k;
          consider(replaced);
        }
    if (best_kinds != kinds) {
      kinds = std::move(best_kinds);
      ends = std::move(best_ends);
      rank = std::move(best_rank);
      improved = true;
    }
  }
  return {ends, kinds, rank.front()};
}

/// Shisha's balance seed: cut the layers evenly, then give each stage, the heaviest first, the
/// kind that runs its layers fastest among the devices left.
std::vector<int> balanced_seed(const StageSearchProblem& p, const Evaluator& evaluate) {
  const int S = p.stages, L = p.layers();
  std::vector<int> order(static_cast<std::size_t>(S)), kinds(static_cast<std::size_t>(S), -1);
  std::iota(order.begin(), order.end(), 0);
  const auto span = [&](int s) { return std::pair{s * L / S, (s + 1) * L / S}; };
  const auto work = [&](int s) {
    double w = 0;
    for (int k = 0; k < p.kinds(); ++k) w += evaluate.stage_s(k, span(s).first, span(s).second);
    return w;
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return work(a) > work(b); });
  auto spare = p.devices;
  for (int s : order) {
    int pick = -1;
    for (int k = 0; k < p.kinds(); ++k)
      if (spare[k] > 0 && (pick < 0 || evaluate.stage_s(k, span(s).first, span(s).second) <
                                            evaluate.stage_s(pick, span(s).first, span(s).second)))
        pick = k;
    kinds[s] = pick;
    --spare[pick];
  }
  return kinds;
}

}  // namespace

SearchResult shisha_search(const StageSearchProblem& problem) {
  check_problem(problem);
  Evaluator evaluate(problem);
  // Two seeds — the fastest devices, and each stage of an even cut on the device best at it —
  // each improved by descent; the better plan wins.
  StagePlan best = descend(problem, evaluate, fastest_kinds(problem));
  StagePlan other = descend(problem, evaluate, balanced_seed(problem, evaluate));
  if (other.bottleneck_s < best.bottleneck_s) best = std::move(other);
  return {best, evaluate.evaluations};
}

std::string describe_plan(const StagePlan& plan) {
  std::string text;
  for (std::size_t s = 0; s < plan.ends.size(); ++s)
    text += fmt::format("{}[{},{}) k{}", s == 0 ? "" : " | ", s == 0 ? 0 : plan.ends[s - 1], plan.ends[s], plan.kinds[s]);
  return text;
}

}  // namespace clearfog::parallel
