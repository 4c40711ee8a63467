// The one planner against the data-parallel planner it replaced (the DDP path that ran plain data
// parallelism until the model description): for the quickstart and variants at tp = pp = 1, the
// same ops in the same order with the same durations and transfers, and the same replay. The
// reference below is that planner's algorithm, reading its kernels from the same TransformerModel.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <numeric>

#include "config/ConfigLoader.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "support/PlanRun.hpp"
#include "support/TestPlatforms.hpp"
#include "workload/TransformerModel.hpp"

using namespace clearfog;
using program::Category;
using program::OpIndex;
using program::Stream;

namespace {

double price(const kernels::KernelCostModel& costs, const std::vector<kernels::Kernel>& kernels) {
  double t = 0;
  for (const auto& k : kernels) t += costs.cost(k).time_s;
  return t;
}

template <typename... Lists>
std::vector<kernels::Kernel> concat(const std::vector<kernels::Kernel>& first, const Lists&... rest) {
  std::vector<kernels::Kernel> all = first;
  (all.insert(all.end(), rest.begin(), rest.end()), ...);
  return all;
}

/// The removed data-parallel planner: per replica and micro-batch one op per embedding, layer and
/// head pass; the last micro-batch's backward makes DDP's gradient tensors ready; a ring
/// all-reduce per bucket on the comm stream; the optimizer after the last bucket.
program::Plan reference_plan(const config::ScenarioSpec& s, const kernels::KernelCostModel& costs) {
  const auto& w = test::transformer(s.workload);
  const workload::TransformerModel model(w, s.training.micro_batch, s.training.precision);
  const int layers = w.layers, dp = s.parallelism.dp, m = s.micro_batches_per_replica();
  const double e = dtype_bytes(s.training.precision), h = w.hidden;
  const double embedding_fwd = price(costs, concat(model.embedding_forward(), model.embedding_dropout_forward()));
  const double layer_fwd = price(costs, concat(model.attention_forward(), model.mlp_forward()));
  const double head_fwd = price(costs, concat(model.final_norm_forward(), model.logits_forward()));
  const double head_bwd = price(costs, concat(model.logits_backward(), model.final_norm_backward()));
  const double layer_bwd = price(costs, concat(model.mlp_backward(), model.attention_backward()));
  const double embedding_bwd = price(costs, concat(model.embedding_dropout_backward(), model.embedding_backward()));
  const double optimizer =
      costs.cost(workload::TransformerModel::optimizer_step(model.total_parameters(), true, s.training.precision,
                                                            DType::fp32))
          .time_s;
  // Backward slots of the last micro-batch: 0 head, 1 + k layer (layers-1-k), layers+1 embedding.
  std::vector<parallel::GradientTensor> tensors = {{"final_ln", 2 * h * e, 0}};
  for (int l = layers - 1; l >= 0; --l) {
    const double f = w.ffn_hidden;
    const int slot = 1 + (layers - 1 - l);
    for (const double n : {h, f * h, f, h * f, 2 * h, h, h * h, 3 * h, 3 * h * h, 2 * h})
      tensors.push_back({"L", n * e, slot});
  }
  tensors.push_back({"position", static_cast<double>(w.seq_length) * h * e, layers + 1});
  tensors.push_back({"word", static_cast<double>(w.vocab_size) * h * e, layers + 1});
  const auto buckets = dp > 1 ? parallel::make_gradient_buckets(tensors, s.training.bucket_size_B)
                              : std::vector<parallel::GradientBucket>{};
  program::Plan plan;
  plan.ranks.resize(dp);
  std::vector<std::vector<OpIndex>> slot_op(dp, std::vector<OpIndex>(layers + 2));
  for (int r = 0; r < dp; ++r) {
    auto& prog = plan.ranks[r];
    for (int mb = 0; mb < m; ++mb) {
      const bool last = mb == m - 1;
      prog.add_compute(Stream::Compute, Category::Forward, fmt::format("mb{}.embedding.fwd", mb), embedding_fwd);
      for (int l = 0; l < layers; ++l)
        prog.add_compute(Stream::Compute, Category::Forward, fmt::format("mb{}.L{}.fwd", mb, l), layer_fwd);
      prog.add_compute(Stream::Compute, Category::Forward, fmt::format("mb{}.head.fwd", mb), head_fwd);
      OpIndex op = prog.add_compute(Stream::Compute, Category::Backward, fmt::format("mb{}.head.bwd", mb), head_bwd);
      if (last) slot_op[r][0] = op;
      for (int l = layers - 1; l >= 0; --l) {
        op = prog.add_compute(Stream::Compute, Category::Backward, fmt::format("mb{}.L{}.bwd", mb, l), layer_bwd);
        if (last) slot_op[r][1 + (layers - 1 - l)] = op;
      }
      op = prog.add_compute(Stream::Compute, Category::Backward, fmt::format("mb{}.embedding.bwd", mb), embedding_bwd);
      if (last) slot_op[r][layers + 1] = op;
    }
  }
  collectives::TagAllocator tags;
  std::vector<OpIndex> reduced(dp);
  std::vector<int> members(dp);
  std::iota(members.begin(), members.end(), 0);
  const auto group = parallel::plain_group_collectives(dp);
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    auto request = group.request(config::CollectiveOp::AllReduce, members, buckets[b].bytes);
    request.stream = Stream::Comm;
    request.category = Category::DataParallelComm;
    request.name = fmt::format("s0.t0.all_reduce.b{}", b);
    request.deps.assign(members.size(), {});
    for (int i = 0; i < dp; ++i) request.deps[i] = {slot_op[i][buckets[b].ready_slot]};
    const auto done = collectives::append_collective(plan, request, tags);
    for (int i = 0; i < dp; ++i) reduced[i] = done[i];
  }
  for (int r = 0; r < dp; ++r) {
    std::vector<OpIndex> deps;
    if (!buckets.empty()) deps.push_back(reduced[r]);
    plan.ranks[r].add_compute(Stream::Compute, Category::Optimizer, "optimizer", optimizer, deps);
  }
  return plan;
}

}  // namespace

TEST_CASE("parallel::plan_step: at tp = pp = 1 it plans what the data-parallel planner did", "[parallel]") {
  const auto quickstart = config::load_scenario(std::filesystem::path(CLEARFOG_SOURCE_DIR) / "scenarios/quickstart.yaml");
  const kernels::BlockedGemmModel costs(quickstart.platform.accelerator);
  auto s = quickstart;
  SECTION("the quickstart") {}
  SECTION("small buckets") { s.training.bucket_size_B = 4e6; }
  SECTION("one replica") {
    s.parallelism.dp = 1;
    s.platform.node.devices = 1;
  }
  const auto expected = reference_plan(s, costs);
  const auto planned = parallel::plan_step(s, costs, parallel::plain_group_collectives(s.parallelism.dp));
  REQUIRE(planned.plan.rank_count() == expected.rank_count());
  for (int r = 0; r < expected.rank_count(); ++r) {
    const auto& want = expected.ranks[r].ops();
    const auto& got = planned.plan.ranks[r].ops();
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      INFO("rank " << r << " op " << i << " " << want[i].name << " / " << got[i].name);
      CHECK(got[i].name == want[i].name);
      CHECK(got[i].kind == want[i].kind);
      CHECK(got[i].stream == want[i].stream);
      CHECK(got[i].category == want[i].category);
      CHECK(got[i].duration_s == Approx(want[i].duration_s).epsilon(1e-12));
      REQUIRE(got[i].sends.size() == want[i].sends.size());
      for (std::size_t k = 0; k < want[i].sends.size(); ++k) {
        CHECK(got[i].sends[k].peer == want[i].sends[k].peer);
        CHECK(got[i].sends[k].bytes == want[i].sends[k].bytes);
      }
      CHECK(got[i].recvs.size() == want[i].recvs.size());
    }
  }
  const auto topology = topology::ClusterTopology::build(s.platform);
  const auto a = engine::simulate_forked(topology, expected);
  const auto b = engine::simulate_forked(topology, planned.plan);
  CHECK(b.makespan_s == Approx(a.makespan_s).epsilon(1e-12));
}
