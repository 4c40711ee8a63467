// The rings NCCL's channels take over direct links (RingFamily.hpp): checked against what the
// links carry in each direction, the bound every family must meet.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <numeric>

#include "topology/RingFamily.hpp"

using namespace clearfog;

namespace {

using Widths = std::vector<std::vector<double>>;

Widths ring_of(int n, double w) {
  Widths width(n, std::vector<double>(n, 0.0));
  for (int i = 0; i < n; ++i) width[i][(i + 1) % n] = width[(i + 1) % n][i] = w;
  return width;
}

Widths full_mesh(int n, double w) {
  Widths width(n, std::vector<double>(n, w));
  for (int i = 0; i < n; ++i) width[i][i] = 0;
  return width;
}

/// Every ring is an order of all members from position 0 over direct links, and no directed link
/// carries more rings than its width allows at the family's speed.
void check_carried(const Widths& width, const topology::RingFamily& family) {
  const int n = static_cast<int>(width.size());
  std::map<std::pair<int, int>, int> uses;
  for (const auto& ring : family.rings) {
    REQUIRE(static_cast<int>(ring.size()) == n);
    CHECK(ring.front() == 0);
    auto sorted = ring;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> all(n);
    std::iota(all.begin(), all.end(), 0);
    CHECK(sorted == all);
    for (int i = 0; i < n; ++i) ++uses[{ring[i], ring[(i + 1) % n]}];
  }
  for (const auto& [link, count] : uses) CHECK(count * family.ring_Bps <= width[link.first][link.second] * (1 + 1e-12));
}

/// What one member can send at most: the sum of its links' widths in one direction.
double out_capacity_Bps(const Widths& width, int member) {
  return std::accumulate(width[member].begin(), width[member].end(), 0.0);
}

}  // namespace

TEST_CASE("topology::RingFamily: a ring of links carries the ring and its reverse", "[topology]") {
  for (int n : {3, 5, 8, 16}) {
    const auto width = ring_of(n, 50e9);
    const auto family = topology::ring_family(width);
    check_carried(width, family);
    REQUIRE(family.rings.size() == 2);
    CHECK(family.ring_Bps == 50e9);
    std::vector<int> own(n), back{0};
    std::iota(own.begin(), own.end(), 0);
    for (int i = n - 1; i > 0; --i) back.push_back(i);
    CHECK(family.rings[0] == own);
    CHECK(family.rings[1] == back);
  }
}

TEST_CASE("topology::RingFamily: large groups keep their order and its reverse, unsearched", "[topology]") {
  const int n = topology::kRingFamilyMaxMembers + 8;
  const auto width = ring_of(n, 45e9);
  const auto family = topology::ring_family(width);
  check_carried(width, family);
  CHECK(family.rings.size() == 2);
}

TEST_CASE("topology::RingFamily: a full mesh fills every link both ways", "[topology]") {
  // K4: three Hamiltonian cycles, each link in two of them; both directions of each at half speed
  // give 6 rings of w/2, i.e. all 3w a member can send.
  for (int n : {4, 5}) {
    const double w = 25e9;
    const auto width = full_mesh(n, w);
    const auto family = topology::ring_family(width);
    check_carried(width, family);
    CHECK(static_cast<double>(family.rings.size()) * family.ring_Bps == Approx(out_capacity_Bps(width, 0)));
  }
}

TEST_CASE("topology::RingFamily: nothing without a cycle of direct links, or below three members", "[topology]") {
  CHECK(topology::ring_family(Widths(8, std::vector<double>(8, 0.0))).empty());  // every pair through a switch
  CHECK(topology::ring_family(full_mesh(2, 50e9)).empty());  // a two-member ring already uses both ways
  Widths chain = ring_of(6, 50e9);
  chain[5][0] = chain[0][5] = 0;  // a line, not a ring
  CHECK(topology::ring_family(chain).empty());
}

TEST_CASE("topology::hamiltonian_cycle: respects the minimum width and the budget", "[topology]") {
  auto width = ring_of(6, 50e9);
  width[2][3] = width[3][2] = 10e9;
  CHECK(topology::hamiltonian_cycle(width, 10e9, 1000) == std::vector<int>{0, 1, 2, 3, 4, 5});
  CHECK(topology::hamiltonian_cycle(width, 20e9, 1000).empty());
  CHECK(topology::hamiltonian_cycle(width, 10e9, 2).empty());  // gives up before closing the cycle
}
