// Which rank permutations map a plan onto itself (program::plan_symmetry_violation): a ring whose
// members all do the same is invariant under a shift; a different duration, a different peer or a
// different message size on one member breaks it.
#include <catch2/catch.hpp>

#include <numeric>

#include "program/MessageIndex.hpp"
#include "program/PlanSymmetry.hpp"

using namespace clearfog;
using program::Category;
using program::Stream;
using program::Transfer;

namespace {

/// `p` ranks: compute, then one exchange sending `bytes` to the next rank and receiving from the
/// previous one, then a compute that waits for it.
program::Plan ring(int p, double bytes) {
  program::Plan plan;
  plan.ranks.resize(p);
  for (int r = 0; r < p; ++r) {
    auto& prog = plan.ranks[r];
    const auto a = prog.add_compute(Stream::Compute, Category::Backward, "bwd", 1e-3);
    const auto x = prog.add_exchange(Stream::Comm, Category::DataParallelComm, "ring", {Transfer{(r + 1) % p, bytes,
                                     static_cast<std::uint64_t>(r)}},
                                     {Transfer{(r + p - 1) % p, bytes, static_cast<std::uint64_t>((r + p - 1) % p)}}, {a});
    prog.add_compute(Stream::Compute, Category::Optimizer, "opt", 2e-3, {x});
  }
  return plan;
}

std::vector<int> shift(int p, int by) {
  std::vector<int> image(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) image[r] = (r + by) % p;
  return image;
}

}  // namespace

TEST_CASE("program::plan_symmetry_violation: a ring is invariant under a shift, not under a swap", "[program]") {
  const auto plan = ring(4, 1e6);
  const auto index = program::index_messages(plan);
  CHECK(program::plan_symmetry_violation(plan, index, shift(4, 1)).empty());
  CHECK(program::plan_symmetry_violation(plan, index, shift(4, 2)).empty());
  CHECK(program::permutation_order(plan, shift(4, 1), 4) == 4);
  CHECK(program::permutation_order(plan, shift(4, 2), 4) == 2);
  // Swapping ranks 0 and 1 only: rank 1's successor 2 would have to become rank 0's successor 1.
  CHECK_THAT(program::plan_symmetry_violation(plan, index, {1, 0, 2, 3}), Catch::Contains("exchanges with rank"));
  CHECK_THAT(program::plan_symmetry_violation(plan, index, {1, 1, 2, 3}), Catch::Contains("not a permutation"));
}

TEST_CASE("program::plan_symmetry_violation: one member that differs breaks the symmetry", "[program]") {
  SECTION("a longer compute op") {
    auto plan = ring(4, 1e6);
    plan.ranks[2].add_compute(Stream::Compute, Category::Optimizer, "extra", 1e-3);
    plan.ranks[0].add_compute(Stream::Compute, Category::Optimizer, "extra", 1e-3);
    plan.ranks[1].add_compute(Stream::Compute, Category::Optimizer, "extra", 1e-3);
    plan.ranks[3].add_compute(Stream::Compute, Category::Optimizer, "extra", 2e-3);
    const auto index = program::index_messages(plan);
    CHECK_THAT(program::plan_symmetry_violation(plan, index, shift(4, 1)), Catch::Contains("op 3 differs"));
  }
  SECTION("a message of another size") {
    // A second ring where rank 2 sends 16 B to rank 0 and the others 8 B.
    auto plan = ring(3, 1e6);
    for (int r = 0; r < 3; ++r) {
      const double out = r == 2 ? 16 : 8;
      const double in = r == 0 ? 16 : 8;
      plan.ranks[r].add_exchange(Stream::Comm, Category::DataParallelComm, "x", {Transfer{(r + 1) % 3, out, 100}},
                                 {Transfer{(r + 2) % 3, in, 100}});
    }
    const auto index = program::index_messages(plan);
    CHECK_THAT(program::plan_symmetry_violation(plan, index, shift(3, 1)), Catch::Contains("moves 16 B"));
  }
}
