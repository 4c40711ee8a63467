// `clearfog burst` end to end on one DGX A100 (docs/burst-parallelism.md): what must hold whatever
// the plans — throughput is the batch over the step, a background job never speeds the foreground
// up and never does more than the devices could alone, and every layer's width fits the budget.
#include <catch2/catch.hpp>

#include <string>

#include "config/ConfigLoader.hpp"
#include "core/Units.hpp"
#include "parallel/BurstCosts.hpp"
#include "burst/BurstRun.hpp"

using namespace clearfog;

namespace {

const std::string kRoot = CLEARFOG_SOURCE_DIR;

burst::BurstOptions small_study() {
  burst::BurstOptions o;
  o.scenario = kRoot + "/scenarios/studies/burst/vgg16.yaml";
  o.sets = {{"platform", kRoot + "/platforms/dgx-a100.yaml"},
            {"parallelism.dp", "8"},
            {"training.global_batch", "32"}};
  o.devices = {4, 8};
  o.background = kRoot + "/workloads/vgg-16.yaml";
  o.background_batch = 8;
  o.iterations = 2;
  return o;
}

}  // namespace

TEST_CASE("burst::run_burst: throughput, priority and capacity hold for every variant", "[sweep][burst]") {
  const auto o = small_study();
  const auto r = burst::run_burst(o);
  REQUIRE(r.points.size() == 2);
  const auto scenario = config::load_scenario(o.scenario, o.sets);
  const auto job = parallel::background_job(scenario, config::load_workload(*o.background), o.background_batch);
  for (const auto& p : r.points) {
    for (const auto* v : {&p.dp, &p.dp_background, &p.burst, &p.burst_background}) {
      CHECK(v->samples_per_s == Approx(32 / v->step_s));
      CHECK(v->cluster_samples_per_s() == Approx(v->samples_per_s + v->background_samples_per_s));
      // A device gives the background at most what it would alone.
      CHECK(v->background_samples_per_s <= p.devices * job.batch / job.iteration_s() * (1 + 1e-9));
    }
    CHECK(p.dp.background_samples_per_s == 0);
    CHECK(p.burst.background_samples_per_s == 0);
    CHECK(p.dp_background.background_samples_per_s > 0);
    // The foreground keeps priority: the background can only delay it.
    CHECK(p.dp_background.step_s >= p.dp.step_s * (1 - 1e-12));
    CHECK(p.burst_background.step_s >= p.burst.step_s * (1 - 1e-12));
    REQUIRE(p.widths.size() == p.layers.size());
    for (const int w : p.widths) CHECK((w >= 1 && w <= p.devices && 32 % w == 0));
    CHECK(!p.candidates.empty());
  }
}

TEST_CASE("burst::burst_json: every variant of every budget", "[sweep][burst]") {
  auto o = small_study();
  o.devices = {4};
  o.background.reset();
  const auto j = burst::burst_json(burst::run_burst(o));
  REQUIRE(j["points"].size() == 1);
  CHECK(j["points"][0]["devices"] == 4);
  CHECK(j["points"][0].contains("burst"));
  CHECK(!j["points"][0].contains("burst_background"));
  CHECK(j["points"][0]["widths"].size() == j["points"][0]["layers"].size());
}

TEST_CASE("burst::run_burst: timelines of the reported variants, the background cut at the foreground's end",
          "[sweep][burst]") {
  auto o = small_study();
  o.devices = {4};
  o.timelines = true;
  const auto with = burst::run_burst(o);
  const auto& p = with.points.at(0);
  // With a background job the variants reported with it carry the timelines, the others none.
  CHECK(p.dp.timeline_svg.empty());
  CHECK(p.burst.timeline_svg.empty());
  for (const auto* v : {&p.dp_background, &p.burst_background}) {
    REQUIRE(!v->timeline_svg.empty());
    CHECK(v->timeline_svg.find("background") != std::string::npos);  // its stream has a row
    CHECK(v->timeline_svg.find("2 iterations") != std::string::npos);
  }
  CHECK(p.burst_background.timeline_svg.find("burst+bg on 4 devices") != std::string::npos);
  // The chart spans the foreground's iterations, not the background's longer run.
  const std::string span = units::format(p.burst_background.step_s * o.iterations, units::Dimension::Time);
  CHECK(p.burst_background.timeline_svg.find("2 iterations, " + span) != std::string::npos);
  // Without one, the plain variants carry them; asking for none changes no figure.
  o.background.reset();
  const auto without = burst::run_burst(o);
  CHECK(!without.points.at(0).dp.timeline_svg.empty());
  CHECK(!without.points.at(0).burst.timeline_svg.empty());
  o.timelines = false;
  const auto plain = burst::run_burst(o);
  CHECK(plain.points.at(0).burst.timeline_svg.empty());
  CHECK(plain.points.at(0).burst.step_s == without.points.at(0).burst.step_s);
}
