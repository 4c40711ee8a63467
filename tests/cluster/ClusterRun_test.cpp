// Cluster runs (docs/cluster.md): jobs on disjoint nodes replayed together. A job alone on its
// nodes takes exactly what `clearfog run` gives for its scenario; jobs that share no link keep
// their times; jobs whose rings cross the same oversubscribed uplinks slow each other down. The
// file's errors are located.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"
#include "support/ReplayTimes.hpp"
#include "anyfile/AnyFile.hpp"
#include "cluster/ClusterRun.hpp"

using namespace clearfog;

namespace {

const std::string kDir = std::string(CLEARFOG_SOURCE_DIR) + "/tests/data/cluster/";

}  // namespace

TEST_CASE("cluster::run_cluster: alone equals clearfog run — packed jobs keep their times, spread ones share uplinks",
          "[sweep][cluster]") {
  auto spec = cluster::load_cluster_file(kDir + "two-jobs.yaml");
  REQUIRE(spec.jobs.size() == 2);
  CHECK(spec.jobs[1].start_s == Approx(0.2e-3));
  CHECK(spec.jobs[0].iterations == 2);

  SECTION("packed: each job in a leaf of its own") {
    spec.placement = cluster::Placement::Packed;
    const auto r = cluster::run_cluster(spec);
    const auto standalone = config::load_scenario(
        kDir + "job.yaml",
        {{"parallelism.dp", "4"}, {"training.global_batch", "4"}, {"platform.fabric.nodes", "2"}});
    const double run_s = test::replay_times(standalone, {}).step_s;
    for (const auto& job : r.jobs) {
      INFO(job.name);
      CHECK(job.slowdown() == 1.0);
      for (const double t : job.alone_iteration_s) CHECK(t == Approx(run_s).epsilon(1e-12));
    }
    CHECK(r.jobs[0].nodes == std::vector<int>{0, 1});
    CHECK(r.jobs[1].nodes == std::vector<int>{2, 3});
    CHECK(r.makespan_s == Approx(2 * run_s).epsilon(1e-12));  // job a's two iterations, back to back
  }
  SECTION("spread: both jobs cross the two uplinks at once") {
    const auto r = cluster::run_cluster(spec);
    for (const auto& job : r.jobs) {
      INFO(job.name);
      CHECK(job.slowdown() > 1.01);
      CHECK(job.iteration_s.size() == static_cast<std::size_t>(job.name == "a" ? 2 : 1));
    }
    const auto j = cluster::cluster_json(r);
    CHECK(j["jobs"][1]["start_s"].get<double>() == Approx(0.2e-3));
    CHECK(j["placement"] == "spread");
  }
}

TEST_CASE("cluster::load_cluster_file: problems are located in the file", "[sweep][cluster]") {
  try {
    cluster::check_cluster(cluster::load_cluster_file(kDir + "bad.yaml"));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    std::string all;
    for (const auto& d : e.diagnostics()) all += d.str() + "\n";
    INFO(all);
    CHECK(all.find("bad.yaml:4:1: placment: unknown key; did you mean \"placement\"?") != std::string::npos);
    CHECK(all.find("bad.yaml:8:12: jobs[0].start:") != std::string::npos);
    CHECK(all.find("bad.yaml:13:12: jobs[2].nodes: must be an integer >= 1") != std::string::npos);
  }
}

TEST_CASE("anyfile::validate_any_file: the shipped cluster files validate", "[sweep][cluster]") {
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/cluster")) {
    INFO(entry.path().string());
    CHECK(anyfile::validate_any_file(entry.path()) == "cluster");
  }
}
