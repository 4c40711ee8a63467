#pragma once
// The rings NCCL's channels take through devices joined by direct links (NVLink meshes, rings,
// tori): not one ring but as many cycles as the links' two directions carry. NCCL's search
// (src/graph/search.cc) gives every channel the same speed S, charges S to each directed link a
// ring crosses (the reverse direction is a link of its own), and keeps finding rings while the
// links have S left; it keeps the speed at which channels x S is largest. A one-way ring on a
// ring node leaves every link's reverse direction idle; the family has the ring and its reverse.
// Pure: the caller gives the widths of the direct links between its members.
#include <vector>

namespace clearfog::topology {

/// Most rings a family holds: NCCL searches for at most MAXCHANNELS / 2 = 16 and duplicates them.
inline constexpr int kMaxFamilyRings = 16;
/// Largest group for which the family is searched (backtracking); larger groups get their own order
/// and its reverse when that order is a cycle of direct links.
inline constexpr int kRingFamilyMaxMembers = 16;

struct RingFamily {
  /// Cycles over member positions 0 … m-1, each a permutation starting at position 0; the first is
  /// the members' own order whenever that order is a cycle of direct links at the family's speed.
  std::vector<std::vector<int>> rings;
  double ring_Bps = 0;  // the speed every ring was charged (0: no family)

  [[nodiscard]] bool empty() const { return rings.empty(); }
};

/// A Hamiltonian cycle from position 0 over links of at least `min_Bps` (width_Bps[a][b]: the link
/// from a to b), by depth-first search over successors in index order, so the answer is
/// deterministic; empty if there is none or the search makes more than `budget` extensions.
std::vector<int> hamiltonian_cycle(const std::vector<std::vector<double>>& width_Bps, double min_Bps, long budget);

/// The family for members whose direct links have `width_Bps[a][b]` bandwidth per direction
/// (0: not directly linked; the matrix is square, symmetric, with a zero diagonal). Empty when
/// the members have no cycle of direct links (a switch node: every ring crosses the switch, whose
/// ports a one-way ring already uses both ways) or fewer than three members (a two-member ring
/// uses both directions already).
RingFamily ring_family(const std::vector<std::vector<double>>& width_Bps);

}  // namespace clearfog::topology
