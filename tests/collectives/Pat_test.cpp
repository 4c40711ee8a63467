#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/CollectiveTestSupport.hpp"
#include "collectives/Pat.hpp"

using namespace clearfog;
using config::CollectiveOp;

namespace {

config::CollectiveAlgorithm pat() { return collectives::collective_algorithm("pat"); }

/// Round k's messages of `s`: their bytes and the distances (to - from, mod p) they travel.
std::multiset<double> round_bytes(const collectives::Schedule& s, int round) {
  std::multiset<double> out;
  for (const auto& m : s.messages())
    if (m.round == round) out.insert(m.bytes);
  return out;
}

std::set<int> round_distances(const collectives::Schedule& s, int round, int p) {
  std::set<int> out;
  for (const auto& m : s.messages())
    if (m.round == round) out.insert(((m.to - m.from) % p + p) % p);
  return out;
}

}  // namespace

TEST_CASE("collectives::Pat: all_gather goes far first, one block to p/2, half the buffer to distance 1",
          "[collectives]") {
  const int p = 8;
  const double n = 8e3;  // small: every round fits the slots
  const auto s = collectives::pat_all_gather_schedule(p, n);
  REQUIRE(s.rounds() == 3);  // log2 p, against the ring's p - 1
  for (int k = 0; k < 3; ++k) {
    INFO("round " << k);
    const int distance = p >> (k + 1);  // r sends to r - distance: p/2, p/4, …, 1
    CHECK(round_distances(s, k, p) == std::set<int>{p - distance});
    const auto bytes = round_bytes(s, k);  // every member sends 2^k blocks
    CHECK(bytes.size() == static_cast<std::size_t>(p));
    CHECK(*bytes.begin() == Approx(std::ldexp(1.0, k) * n / p));
    CHECK(*bytes.rbegin() == Approx(std::ldexp(1.0, k) * n / p));
  }
  for (int r = 0; r < p; ++r) CHECK(s.bytes_sent(r) == Approx((p - 1.0) / p * n));
}

TEST_CASE("collectives::Pat: reduce_scatter is the mirror, near first", "[collectives]") {
  const int p = 16;
  const double n = 16e3;
  const auto s = collectives::pat_reduce_scatter_schedule(p, n);
  REQUIRE(s.rounds() == 4);
  for (int k = 0; k < 4; ++k) {
    INFO("round " << k);
    CHECK(round_distances(s, k, p) == std::set<int>{1 << k});
    CHECK(*round_bytes(s, k).begin() == Approx(std::ldexp(1.0, 3 - k) * n / p));
  }
  for (int r = 0; r < p; ++r) CHECK(s.bytes_received(r) == Approx((p - 1.0) / p * n));
}

TEST_CASE("collectives::Pat: a bounded buffer splits the big rounds, big blocks loop", "[collectives]") {
  SECTION("p = 64, one chunk per block: a round carries at most A = 8·1 blocks") {
    const int p = 64;
    const double chunk_B = 512.0 * 1024;
    const double n = p * chunk_B;  // S = C: F = 1
    const auto s = collectives::pat_all_gather_schedule(p, n, chunk_B);
    // Rounds carry 1, 2, 4, 8, 16, 32 blocks; those above A = min(8·F, p/2) = 8 split.
    int expected = 0;
    for (int k = 0; k < 6; ++k) expected += static_cast<int>(std::ceil(std::ldexp(1.0, k) / 8));
    CHECK(s.rounds() == expected);  // 10: NCCL's step generator takes 10 (reduce-scatter) to 12 (all-gather)
    for (int r = 0; r < p; ++r) CHECK(s.bytes_sent(r) == Approx((p - 1.0) / p * n));
  }
  SECTION("p = 8, blocks of two chunks: two loops of log2 p rounds, one after the other") {
    const int p = 8;
    const double chunk_B = 1e6;
    const auto s = collectives::pat_all_gather_schedule(p, p * 2 * chunk_B, chunk_B);
    CHECK(s.rounds() == 2 * 3);
  }
}

TEST_CASE("collectives::Pat: p not a power of two sends (p-1)/p·n in ceil(log2 p) rounds", "[collectives]") {
  for (int p : {3, 6, 12}) {
    INFO("p = " << p);
    const double n = 1e3 * p;
    for (const auto& s : {collectives::pat_all_gather_schedule(p, n), collectives::pat_reduce_scatter_schedule(p, n)}) {
      CHECK(s.rounds() >= static_cast<int>(std::ceil(std::log2(p))));
      CHECK(s.rounds() <= static_cast<int>(std::ceil(std::log2(p))) + 1);  // NCCL: + 1 just above a power of two
      for (int r = 0; r < p; ++r) CHECK(s.bytes_sent(r) == Approx((p - 1.0) / p * n));
    }
  }
}

TEST_CASE("collectives::Pat: runs one member per node, as NCCL enables it", "[collectives]") {
  const auto& type = pat().type();
  const auto shape = [](std::optional<bool> spans, std::optional<int> per_node) {
    return collectives::GroupShape{.members = 8, .spans_nodes = spans, .ranks_per_node = per_node, .reducing_switch = {}};
  };
  CHECK_FALSE(type.refusal(CollectiveOp::AllGather, shape(true, 1)));
  CHECK_FALSE(type.refusal(CollectiveOp::AllGather, shape(std::nullopt, std::nullopt)));  // not known: allowed
  CHECK(type.refusal(CollectiveOp::AllGather, shape(false, 8)).value_or("").find("one node") != std::string::npos);
  CHECK(type.refusal(CollectiveOp::ReduceScatter, shape(true, 2)).value_or("").find("2 per node") != std::string::npos);
  CHECK(type.implements(CollectiveOp::AllGather));
  CHECK_FALSE(type.implements(CollectiveOp::AllReduce));
  CHECK(type.runs_protocol(config::Protocol::Simple));
  CHECK_FALSE(type.runs_protocol(config::Protocol::LL));
  auto two_per_node = test::collective(CollectiveOp::AllGather, pat(), 8, 1e6);
  two_per_node.ranks_per_node = 2;
  CHECK_THROWS_WITH(test::plan_of(two_per_node), Catch::Contains("pat") && Catch::Contains("one member per node"));
}

TEST_CASE("collectives::Pat: all_gather takes log2(p)·α + (p-1)/p·n·β", "[collectives][simulation]") {
  for (int p : {4, 8})
    for (auto op : {CollectiveOp::AllGather, CollectiveOp::ReduceScatter}) {
      const double n = 64e6;
      const double expected_s = std::log2(p) * test::kAlpha_s + (p - 1.0) / p * n * test::kBeta_sPerB;
      INFO("p = " << p << ", " << config::collective_op_name(op));
      CHECK(test::simulated_s(test::ideal_switch(p), test::collective(op, pat(), p, n)) ==
            Approx(expected_s).epsilon(5e-3));
    }
}
