// The sharding search on a three-table DLRM over the 8 GPUs of a DGX A100: the exhaustive space is
// the closed form's 77 plans (27 with no table-wise table, 27 with one, 18 with two, 5 with three),
// every one simulated and ranked; plans that differ only by renaming devices simulate to the same
// step time, which is what lets the space count them once; the pick is reported against the best.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedPool.hpp"
#include "shard/ShardSearch.hpp"
#include "workload/types/DlrmSpec.hpp"

using namespace clearfog;
using workload::TableChoice;
using workload::TableSharding;

namespace {

config::ScenarioSpec scenario() {
  return config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/tests/sweep/data/shard-three-tables.yaml");
}

TableChoice on(int device) { return {TableSharding::TableWise, device, 0, workload::kAutoPlacement}; }

}  // namespace

TEST_CASE("shard search: the exhaustive space simulated and ranked, the pick among it", "[sweep][shard]") {
  shard::ShardSearchRequest req;
  req.scenario = scenario();
  req.exhaustive = true;
  req.jobs = 2;
  const auto r = shard::search_shardings(req);
  CHECK(r.exhaustive_plans == 27 + 27 + 18 + 5);
  // The baselines (as written, table-, row-, column-wise, data parallel) are plans of the space or
  // renamings of one; the pick may be either.
  CHECK(r.ranked.size() >= r.exhaustive_plans);
  CHECK(r.ranked.size() <= r.exhaustive_plans + 6);
  REQUIRE(r.ranked.front().status == "ok");
  for (std::size_t i = 1; i < r.ranked.size(); ++i)
    if (r.ranked[i].status == "ok") CHECK(r.ranked[i - 1].step_s <= r.ranked[i].step_s);
  CHECK(r.ranked[r.pick].origin.rfind("greedy pick", 0) == 0);
  CHECK(r.ranked[r.pick].step_s >= r.ranked.front().step_s);
  CHECK(r.pick_is_best() == (r.pick_slowdown() == 0));
  const auto j = shard::shard_search_json(r);
  CHECK(j.at("plans").size() == r.ranked.size());
  CHECK(j.at("pick_rank") == r.pick + 1);
  const auto text = shard::render_shard_search(r, 5);
  CHECK(text.find("best: ") != std::string::npos);
  CHECK(text.find("runner-up: ") != std::string::npos);
}

TEST_CASE("shard search: plans that rename devices simulate to the same step", "[sweep][shard]") {
  const auto base = scenario();
  const auto& spec = base.workload.as<workload::DlrmSpec>();
  // {big, mid, small} on devices {0, 1, 1} and on {5, 2, 2}; the second with mid on another device.
  const std::vector<workload::ShardPlan> plans = {{on(0), on(1), on(1)}, {on(5), on(2), on(2)}, {on(5), on(3), on(2)}};
  std::vector<std::function<std::string()>> bodies;
  for (const auto& plan : plans) {
    auto s = base;
    s.workload.params = std::make_shared<workload::DlrmSpec>(workload::with_plan(spec, plan));
    bodies.emplace_back([s] { return std::to_string(driver::run_scenario(s).metrics.step_time_s); });
  }
  const auto out = engine::run_forked_all(bodies, 2);
  for (const auto& o : out) REQUIRE(o.ok);
  CHECK(std::stod(out[0].text) == Approx(std::stod(out[1].text)).epsilon(1e-9));
  CHECK(std::stod(out[2].text) != Approx(std::stod(out[0].text)).epsilon(1e-6));  // not a renaming: differs
}
