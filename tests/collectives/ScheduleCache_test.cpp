// ScheduleCache: a collective appended from a remembered (lowered) schedule gives the same ops as one
// lowered afresh, and a shape is lowered once however many groups run it.
#include <catch2/catch.hpp>

#include <limits>
#include <string>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "collectives/CollectiveTestSupport.hpp"

using namespace clearfog;
using config::CollectiveAlgorithm;
using config::CollectiveOp;

namespace {

/// Every supported (operation, algorithm) over members first … first+7 in two nodes of 4, with a
/// reducing switch per node after the 16 members of the two groups the tests use.
collectives::CollectiveRequest request_over(CollectiveOp op, CollectiveAlgorithm a, config::Fidelity fidelity,
                                            int first) {
  const int p = op == CollectiveOp::SendRecv ? 2 : 8;
  auto r = test::collective(op, a, p, 8e6);
  for (int& rank : r.ranks) rank += first;
  r.fidelity = fidelity;
  r.channels = 4;
  // Two nodes of four (a reducing switch each), else one node, else one member per node: the first
  // placement the algorithm's rule accepts.
  for (int per_node : {4, p, 1}) {
    r.ranks_per_node = per_node;
    r.switch_endpoints = per_node == 4 ? std::vector<int>{16 + first / 4, 17 + first / 4}
                         : per_node == p ? std::vector<int>{16 + first / 8}
                                         : std::vector<int>{};
    if (!a.type().refusal(op, collectives::group_shape(r))) break;
  }
  r.root = p - 1;
  r.step_overhead_s = 1e-6;
  r.step_latency_s = 2e-6;
  r.launch_overhead_s = 3e-6;
  r.deps.assign(static_cast<std::size_t>(p), {});
  return r;
}

/// Two groups running the same collective, one after the other, optionally through a cache.
program::Plan two_groups(CollectiveOp op, CollectiveAlgorithm a, config::Fidelity fidelity,
                         collectives::ScheduleCache* cache) {
  program::Plan plan;
  plan.ranks.resize(20);
  collectives::TagAllocator tags;
  for (const int first : {0, 8}) {
    const auto r = request_over(op, a, fidelity, first);
    if (cache != nullptr)
      collectives::append_collective(plan, r, tags, *cache);
    else
      collectives::append_collective(plan, r, tags);
  }
  return plan;
}

/// A 20-rank plan with its tags and a schedule cache.
struct Appender {
  program::Plan plan;
  collectives::TagAllocator tags;
  collectives::ScheduleCache cache;
  Appender() { plan.ranks.resize(20); }
  void append(const collectives::CollectiveRequest& r) { collectives::append_collective(plan, r, tags, cache); }
};

void check_same_ops(const program::Plan& a, const program::Plan& b) {
  REQUIRE(a.rank_count() == b.rank_count());
  for (int r = 0; r < a.rank_count(); ++r) {
    REQUIRE(a.ranks[r].size() == b.ranks[r].size());
    for (program::OpIndex i = 0; i < a.ranks[r].size(); ++i) {
      const auto x = a.ranks[r].op(i);
      const auto y = b.ranks[r].op(i);
      INFO("rank " << r << " op " << i << " " << std::string(x.name));
      CHECK(std::string_view(x.name) == std::string_view(y.name));
      CHECK(x.kind == y.kind);
      CHECK(x.stream == y.stream);
      CHECK(x.category == y.category);
      CHECK(x.duration_s == y.duration_s);
      CHECK(x.overhead_s == y.overhead_s);
      CHECK(x.sends == y.sends.to_vector());
      CHECK(x.recvs == y.recvs.to_vector());
      CHECK(x.deps == y.deps.to_vector());
    }
  }
}

}  // namespace

TEST_CASE("collectives::ScheduleCache: a remembered schedule plans the same ops as a fresh one", "[collectives]") {
  for (const auto fidelity : {config::Fidelity::Step, config::Fidelity::Fluid})
    for (CollectiveOp op : config::kAllCollectiveOps)
      for (CollectiveAlgorithm a : clearfog::config::collective_algorithm_choices()) {
        if (!collectives::supports(op, a)) continue;
        INFO(config::collective_op_name(op) << " " << config::collective_algorithm_name(a) << " "
                                            << (fidelity == config::Fidelity::Step ? "step" : "fluid"));
        collectives::ScheduleCache cache;
        const auto fresh = two_groups(op, a, fidelity, nullptr);
        const auto cached = two_groups(op, a, fidelity, &cache);
        CHECK_NOTHROW(program::check_plan(cached));
        check_same_ops(fresh, cached);
        CHECK(cache.size() == 1);  // both groups ran one lowered schedule
      }
}

TEST_CASE("collectives::ScheduleCache: a different size, fidelity or member count is a different shape",
          "[collectives]") {
  Appender a;
  auto r = request_over(CollectiveOp::AllReduce, clearfog::collectives::collective_algorithm("ring"), config::Fidelity::Step, 0);
  a.append(r);
  a.append(r);
  CHECK(a.cache.size() == 1);
  r.bytes *= 2;
  a.append(r);
  CHECK(a.cache.size() == 2);
  r.fidelity = config::Fidelity::Fluid;
  a.append(r);
  CHECK(a.cache.size() == 3);
  r.ranks.pop_back();
  r.deps.pop_back();
  r.ranks_per_node = 0;
  a.append(r);
  CHECK(a.cache.size() == 4);
  // An all-to-all-v's matrix is not part of a shape: such requests are never remembered.
  auto v = request_over(CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("direct"), config::Fidelity::Step, 0);
  v.matrix.assign(8, std::vector<double>(8, 1e3));
  a.append(v);
  CHECK(a.cache.size() == 4);
  CHECK_NOTHROW(program::check_plan(a.plan));
}

TEST_CASE("collectives::ScheduleCache: a request is checked before its shape is looked up", "[collectives]") {
  // A NaN would compare equal to any cached shape; the check refuses it first.
  Appender a;
  auto r = request_over(CollectiveOp::AllToAll, clearfog::collectives::collective_algorithm("hierarchical"), config::Fidelity::Step, 0);
  a.append(r);
  r.node_scale = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(a.append(r), Catch::Contains("node_scale must be > 0"));
  CHECK_THROWS_WITH(collectives::append_collective(a.plan, r, a.tags), Catch::Contains("node_scale must be > 0"));
  CHECK(a.cache.size() == 1);
}
