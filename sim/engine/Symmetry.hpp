#pragma once
// Symmetry, proven per run (docs/engine.md, section 3). A planner may hint rank
// permutations under which its plan should be unchanged (program::Plan::symmetries). A hint is
// used only if
//  - it maps the plan onto itself (program::plan_symmetry_violation), and
//  - it maps the platform onto itself as far as the plan uses it: for every pair of ranks that
//    exchange, the route between their images has the same length, and position by position the
//    links map one to one onto links of the same bandwidth, latency and sharing policy.
// The hints kept must commute and move every rank with ops to as many ranks as the group they
// generate has elements (the group acts freely). Then the replay of the whole plan is invariant
// under the group: every rank's timeline equals its class representative's, and one replay of
// the representatives on the quotient platform is exact. In the quotient each message class is one
// flow from its representative sender over its route's links mapped to their class
// representatives; a link fixed by k elements of the group carries k real flows for each quotient
// flow, so it keeps 1/k of its bandwidth. A route that would cross two links of one class is refused.
#include <optional>
#include <string>
#include <vector>

#include "program/MessageIndex.hpp"
#include "program/Program.hpp"

namespace simgrid::s4u {
class Host;
class Link;
}  // namespace simgrid::s4u

namespace clearfog::engine {

struct SymmetryReduction {
  std::vector<std::string> axes;    // the hints used
  int group_order = 1;              // ranks per class
  std::vector<int> representative;  // [rank] the rank replayed in its place (-1: it has no ops)
  /// One per (representative sender, receiver) pair of the plan: the real route's links mapped to
  /// their class representatives.
  struct Route {
    int sender = -1;
    int receiver = -1;
    std::vector<simgrid::s4u::Link*> links;
  };
  std::vector<Route> routes;
  /// Class representatives of links that k > 1 elements of the group leave in place, with k.
  std::vector<std::pair<simgrid::s4u::Link*, int>> shared_links;
};

/// A reduction, or why there is none (said in the run's summary).
struct SymmetryDecision {
  std::optional<SymmetryReduction> reduction;
  std::string reason;
};

/// `hosts[r]`: the SimGrid host of rank r on the real platform (routes are read from it).
SymmetryDecision prove_symmetry(const program::Plan& plan, const program::MessageIndex& index,
                                const std::vector<simgrid::s4u::Host*>& hosts);

}  // namespace clearfog::engine
