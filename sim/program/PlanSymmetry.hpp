#pragma once
// Whether a rank permutation maps a plan onto itself: every rank x and its image g(x) have the
// same ops (kind, stream, category, duration or overhead, dependencies), and the k-th transfer of
// g(x) goes to g(peer of x's k-th transfer), moves the same bytes and is matched at the same
// transfer index on its peer. Names and tags may differ: they do not change timings. Pure; the
// engine adds the platform's side of the proof (engine/Symmetry.hpp).
#include <string>
#include <vector>

#include "program/MessageIndex.hpp"
#include "program/Program.hpp"

namespace clearfog::program {

/// Empty if `image` is a permutation of the ranks that maps `plan` onto itself; else what breaks it.
std::string plan_symmetry_violation(const Plan& plan, const MessageIndex& index, const std::vector<int>& image);

/// The order of the permutation on the ranks that have ops (lcm of its cycle lengths), 0 if that
/// exceeds `limit`.
int permutation_order(const Plan& plan, const std::vector<int>& image, int limit);

}  // namespace clearfog::program
