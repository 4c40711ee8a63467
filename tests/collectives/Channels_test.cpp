// NCCL-style channels: a ring all-reduce split over several rings, each rotated inside every node,
// so each ring crosses a node boundary between different devices.
#include <catch2/catch.hpp>

#include <set>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/Collective.hpp"

using namespace clearfog;

TEST_CASE("collectives::Ring channels: same volume per rank, node crossings spread over devices", "[collectives]") {
  const int p = 8;
  const int per_node = 4;
  const double n = 64e6;
  for (int channels : {1, 2, 4}) {
    program::Plan plan;
    plan.ranks.resize(p);
    collectives::CollectiveRequest r;
    r.op = config::CollectiveOp::AllReduce;
    r.algorithm = clearfog::collectives::collective_algorithm("ring");
    r.ranks = {0, 1, 2, 3, 4, 5, 6, 7};
    r.bytes = n;
    r.ranks_per_node = per_node;
    r.channels = channels;
    collectives::TagAllocator tags;
    collectives::append_collective(plan, r, tags);
    REQUIRE_NOTHROW(program::check_plan(plan));
    std::set<int> senders_across_nodes;
    for (int rank = 0; rank < p; ++rank) {
      double sent = 0;
      for (const auto& op : plan.ranks[rank].ops())
        for (const auto& t : op.sends) {
          sent += t.bytes;
          if (t.peer / per_node != rank / per_node) senders_across_nodes.insert(rank);
        }
      // Every ring moves 2(p-1)/p of its share; the shares add up to n.
      CHECK(sent == Approx(2.0 * (p - 1) / p * n).epsilon(1e-12));
    }
    // Channel c leaves node 0 from member (per_node - 1 + c) mod per_node, and node 1 likewise.
    CHECK(senders_across_nodes.size() == static_cast<std::size_t>(2 * channels));
  }
}

TEST_CASE("collectives::Ring family: a ring and its reverse each carry half, to both neighbours", "[collectives]") {
  const int p = 5;
  const double n = 10e6;
  for (int channels : {1, 2}) {
    program::Plan plan;
    plan.ranks.resize(p);
    collectives::CollectiveRequest r;
    r.op = config::CollectiveOp::AllReduce;
    r.algorithm = clearfog::collectives::collective_algorithm("ring");
    r.ranks = {0, 1, 2, 3, 4};
    r.bytes = n;
    r.channels = channels;
    r.rings = {{0, 1, 2, 3, 4}, {0, 4, 3, 2, 1}};
    collectives::TagAllocator tags;
    collectives::append_collective(plan, r, tags);
    REQUIRE_NOTHROW(program::check_plan(plan));
    for (int rank = 0; rank < p; ++rank) {
      double forward = 0, backward = 0;
      for (const auto& op : plan.ranks[rank].ops())
        for (const auto& t : op.sends) (t.peer == (rank + 1) % p ? forward : backward) += t.bytes;
      // One channel plans the first ring only; two split the buffer over both directions.
      const double total = 2.0 * (p - 1) / p * n;
      CHECK(forward == Approx(channels == 1 ? total : total / 2));
      CHECK(backward == Approx(channels == 1 ? 0.0 : total / 2).margin(1e-6));
    }
  }
}

TEST_CASE("collectives::Ring family: a ring that is not an order of the block is refused", "[collectives]") {
  program::Plan plan;
  plan.ranks.resize(4);
  collectives::CollectiveRequest r;
  r.algorithm = collectives::collective_algorithm("ring");
  r.ranks = {0, 1, 2, 3};
  r.bytes = 1e6;
  r.rings = {{0, 1, 1, 3}};
  collectives::TagAllocator tags;
  CHECK_THROWS_WITH(collectives::append_collective(plan, r, tags), Catch::Contains("not an order of a block's 4 members"));
}
