// A platform with two kinds of device (platform key `mixed`, docs/heterogeneous-pipelines.md): each
// replica's compute runs at its own device's prices, and a second kind identical to the first
// changes nothing.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "kernels/ScaledCostModel.hpp"
#include "parallel/BlockCosts.hpp"
#include "workload/WorkloadType.hpp"

using namespace clearfog;

namespace {

const std::string kRoot = CLEARFOG_SOURCE_DIR;
const std::string kScenario = kRoot + "/scenarios/studies/hetero-pipeline/resnet50-mixed.yaml";

/// Forward time of every block on `accelerator` at the scenario's micro-batch, by block name.
std::map<std::string, double> forward_prices(const config::ScenarioSpec& s, const config::AcceleratorSpec& accelerator) {
  const kernels::BlockedGemmModel gemm(accelerator);
  const kernels::ScaledCostModel stack(gemm, s.framework.kernel_time_factor);
  const auto model = workload::describe(s);
  const parallel::BlockCosts costs(model, stack);
  std::map<std::string, double> prices;
  for (std::size_t b = 0; b < model.blocks.size(); ++b) prices[model.blocks[b].name] = costs.of(b).forward_s();
  return prices;
}

/// The forward compute ops of micro-batch 0 on `rank` ("mb0.<block>.fwd"), by block name.
std::map<std::string, double> forward_ops(const program::Plan& plan, int rank) {
  std::map<std::string, double> ops;
  for (const auto& op : plan.ranks[rank].ops()) {
    const std::string name = op.name.str();
    if (op.kind == program::OpKind::Compute && op.category == program::Category::Forward &&
        name.starts_with("mb0.") && name.ends_with(".fwd"))
      ops[name.substr(4, name.size() - 8)] = op.duration_s;
  }
  return ops;
}

}  // namespace

TEST_CASE("parallel::plan_step: on a mixed platform each stage computes at its own device's prices",
          "[parallel][mixed]") {
  const auto s = config::load_scenario(kScenario);
  REQUIRE(s.platform.mixed);
  const auto plan = driver::plan_scenario(s).step.plan;
  const auto a100 = forward_prices(s, s.platform.accelerator);
  const auto v100 = forward_prices(s, s.platform.mixed->accelerator);
  // Stage 0 is node 0 (devices 0-7, A100), stage 1 node 1 (devices 8-15, V100).
  for (const auto& [rank, prices] : {std::pair{0, a100}, std::pair{7, a100}, std::pair{8, v100}, std::pair{15, v100}}) {
    const auto ops = forward_ops(plan, rank);
    REQUIRE(!ops.empty());
    for (const auto& [block, seconds] : ops) CHECK(seconds == Approx(prices.at(block)).epsilon(1e-12));
  }
  // The V100 is the slower chip on every block.
  for (const auto& [block, seconds] : forward_ops(plan, 8)) CHECK(seconds > a100.at(block));
}

TEST_CASE("parallel::plan_step: a second kind identical to the first changes no op", "[parallel][mixed]") {
  const std::string a100 = kRoot + "/platforms/accelerators/a100-sxm4-80gb.yaml";
  const auto mixed = config::load_scenario(kScenario, {{"platform.mixed.accelerator", a100}});
  const auto plain = config::load_scenario(kScenario, {{"platform", kRoot + "/platforms/dgx-a100-cluster.yaml"},
                                                       {"platform.fabric.nodes", "2"}});
  REQUIRE(mixed.platform.mixed);
  REQUIRE(!plain.platform.mixed);
  const auto a = driver::plan_scenario(mixed).step.plan;
  const auto b = driver::plan_scenario(plain).step.plan;
  REQUIRE(a.rank_count() == b.rank_count());
  for (int r = 0; r < a.rank_count(); ++r) {
    REQUIRE(a.ranks[r].size() == b.ranks[r].size());
    for (program::OpIndex i = 0; i < a.ranks[r].size(); ++i) CHECK(a.ranks[r].seconds(i) == b.ranks[r].seconds(i));
  }
}
