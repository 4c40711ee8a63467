// `clearfog compare` searches the training knobs a user would (ZeRO stage, recomputation,
// sequence parallelism, attention kind, precision), takes `--set`/`set:` overrides, keeps a memory
// headroom and says why each best was chosen. Expected values come from the memory estimate and
// the ZeRO paper's bytes per parameter, not from the program's output.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "config/ConfigLoader.hpp"
#include "parallel/MemoryEstimate.hpp"
#include "support/RunCli.hpp"

namespace fs = std::filesystem;
using clearfog::test::run_cli;

namespace {

const fs::path kSource = CLEARFOG_SOURCE_DIR;
const fs::path kData = kSource / "tests/sweep/data";
const fs::path kToy = fs::path(CLEARFOG_TEST_DATA_DIR) / "config/good/workload.yaml";

nlohmann::json run_json(const std::string& args) {
  const auto r = run_cli(args + " --format json", false);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.output);
}

/// The toy workload on one A100 with every knob fixed, as compare builds it: the memory estimate.
double toy_estimate_B() {
  const fs::path file = fs::temp_directory_path() / fmt::format("compare-headroom-{}.yaml", ::getpid());
  {
    std::ofstream f(file);
    f << "kind: scenario\nname: headroom\nplatform: " << (kSource / "platforms/dgx-a100.yaml").string()
      << "\nworkload: " << kToy.string()
      << "\ntraining: {global_batch: 4, micro_batch: 1, precision: bf16, recompute: none, attention: fused}\n";
  }
  const auto scenario = clearfog::config::load_scenario(file, {{"platform.node.devices", "1"}});
  fs::remove(file);
  return clearfog::parallel::estimate_memory(scenario).total_B();
}

const std::string kOneConfig =
    " --devices 1 --micro-batch 1 --no-confirm --search zero_stage=0 --search recompute=none"
    " --search attention=fused --search precision=bf16";

}  // namespace

TEST_CASE("compare: the searched knobs appear in every configuration and in the winner", "[compare][cli]") {
  const auto j = run_json("compare " + (kData / "compare-tiny.yaml").string() + " --jobs 2");
  for (const auto& p : j.at("platforms")) {
    INFO(p.at("platform").get<std::string>());
    REQUIRE(p.at("status") == "ok");
    std::set<bool> sp_values;
    std::set<std::string> attentions;
    for (const auto& c : p.at("configurations_tried")) {
      for (const char* key : {"zero_stage", "recompute", "sequence_parallel", "attention", "precision"})
        CHECK(c.contains(key));
      // Sequence parallelism only where tp > 1.
      if (c.at("tp").get<int>() == 1) CHECK(c.at("sequence_parallel") == false);
      if (c.at("tp").get<int>() > 1 && c.at("status") != "invalid") sp_values.insert(c.at("sequence_parallel").get<bool>());
      attentions.insert(c.at("attention").get<std::string>());
      // The toy model fits without any memory-saving knob: the cheapest rung is always taken.
      if (c.at("status") == "ok") {
        CHECK(c.at("zero_stage") == 0);
        CHECK(c.at("recompute") == "none");
      }
    }
    // A transformer: both attention kinds are tried; every layout with tp > 1 is tried first with
    // sequence parallelism on.
    CHECK(attentions == std::set<std::string>{"fused", "unfused"});
    CHECK(sp_values.count(true) == 1);
    const auto& knobs = p.at("knobs");
    for (const char* key : {"tp", "pp", "dp", "micro_batch", "zero_stage", "recompute", "sequence_parallel",
                            "attention", "precision"})
      CHECK(knobs.contains(key));
    // Why: the winner against the runner-up, which is not faster at the same fidelity.
    const auto& why = p.at("why");
    REQUIRE(!why.at("runner_up").is_null());
    CHECK(why.at("winner").at("step_time_s").get<double>() <= why.at("runner_up").at("step_time_s").get<double>());
    CHECK(why.at("faster_by").get<double>() >= 0);
    CHECK(why.at("winner").at("knobs") == knobs);
    CHECK(!why.at("differs_in").empty());
  }
  const auto text = run_cli("compare " + (kData / "compare-tiny.yaml").string() + " --jobs 2", false);
  CHECK_THAT(text.output, Catch::Contains("why each best") && Catch::Contains("the runner-up differs in"));
}

TEST_CASE("compare: a configuration above the memory headroom is never the best", "[compare][cli]") {
  const double estimate_B = toy_estimate_B();
  // Device memory such that the one configuration uses 98 % of it.
  const std::string capacity = fmt::format("{:.0f} B", estimate_B / 0.98);
  const std::string args = "compare --workload " + kToy.string() + " --platforms " +
                           (kSource / "platforms/dgx-a100.yaml").string() + kOneConfig +
                           " --set platform.accelerator.memory.capacity=\"" + capacity + "\"";
  SECTION("default headroom 5 %: fits, but not chosen") {
    const auto j = run_json(args);
    const auto& p = j.at("platforms")[0];
    CHECK(j.at("memory_headroom").get<double>() == Approx(0.05));
    CHECK(p.at("status") == "over_headroom");
    CHECK(p.at("best").is_null());
    CHECK(p.at("configurations").at("over_headroom") == 1);
    const auto& m = p.at("fastest_over_headroom").at("memory");
    CHECK(m.at("total_B").get<double>() == Approx(estimate_B));
    CHECK(m.at("total_B").get<double>() / p.at("capacity_B").get<double>() == Approx(0.98).epsilon(1e-6));
    const auto text = run_cli(args, false);
    CHECK_THAT(text.output, Catch::Contains("fits only above the 5% headroom"));
  }
  SECTION("headroom 0: chosen") {
    const auto j = run_json(args + " --memory-headroom 0");
    const auto& p = j.at("platforms")[0];
    CHECK(p.at("status") == "ok");
    CHECK(p.at("best").at("memory").at("total_B").get<double>() == Approx(estimate_B));
  }
}

TEST_CASE("compare: --set and set: are applied before the search", "[compare][cli]") {
  SECTION("--set on the command line") {
    const auto j = run_json("compare --workload " + kToy.string() + " --platforms " +
                            (kSource / "platforms/dgx-a100.yaml").string() +
                            " --devices 1 --micro-batch 1 --no-confirm --set training.optimizer=sgd");
    const auto& best = j.at("platforms")[0].at("best");
    CHECK(j.at("set").at("training.optimizer") == "sgd");
    CHECK(best.at("training").at("optimizer") == "sgd");
    // Mixed-precision SGD with momentum keeps an fp32 master copy and the momentum: 8 B per
    // parameter on one device (ZeRO paper, Sec. 3.1, with SGD's one moment for Adam's two).
    CHECK(best.at("memory").at("optimizer_B").get<double>() == Approx(8 * best.at("parameters").get<double>()));
  }
  SECTION("set: in the comparison file, with its headroom and restricted search") {
    const auto j = run_json("compare " + (kData / "compare-set.yaml").string() + " --no-confirm --jobs 2");
    CHECK(j.at("memory_headroom").get<double>() == Approx(0.1));
    const auto& p = j.at("platforms")[0];
    REQUIRE(p.at("status") == "ok");
    CHECK(p.at("best").at("training").at("optimizer") == "sgd");
    for (const auto& c : p.at("configurations_tried")) {
      CHECK(c.at("zero_stage") == 0);
      CHECK(c.at("precision") == "bf16");
    }
  }
}

TEST_CASE("compare: a bad --set or set: key exits 2 and says where", "[compare][cli]") {
  const auto cli = run_cli("compare --workload " + kToy.string() + " --platforms " +
                               (kSource / "platforms/dgx-a100.yaml").string() + " --set training.optimiser=sgd",
                           true);
  CHECK(cli.exit_code == 2);
  CHECK_THAT(cli.output, Catch::Contains("--set") && Catch::Contains("training.optimiser") &&
                             Catch::Contains("training.optimizer"));
  const auto file = run_cli("compare " + (kData / "compare-bad-set.yaml").string(), true);
  CHECK(file.exit_code == 2);
  CHECK_THAT(file.output, Catch::Contains("compare-bad-set.yaml:8:23:") && Catch::Contains("training.optimiser"));
  const auto search_key = run_cli("compare " + (kData / "compare-bad.yaml").string(), true);
  CHECK(search_key.exit_code == 2);
  CHECK_THAT(search_key.output, Catch::Contains("compare-bad.yaml:9:3: search.zero: unknown knob"));
  const auto search = run_cli("compare " + (kData / "compare-tiny.yaml").string() + " --search recompute=some", true);
  CHECK(search.exit_code == 2);
  CHECK_THAT(search.output, Catch::Contains("--search") && Catch::Contains("none, selective, full, op"));
  const auto layout = run_cli("compare " + (kData / "compare-tiny.yaml").string() + " --set parallelism.tp=2", true);
  CHECK(layout.exit_code == 2);
  CHECK_THAT(layout.output, Catch::Contains("compare searches the layout"));
}

TEST_CASE("compare: a 70B model fits on 8 GPUs of 192 GB once ZeRO and recomputation are searched",
          "[compare][cli][slow]") {
  // The example: Llama 2 70B on eight MI300X-like GPUs (192 GB of HBM3 each; no MI300X
  // platform ships, so a DGX H100 with that memory). Mixed-precision Adam keeps 16 B per parameter
  // (ZeRO paper, Sec. 3.1): 16 x 69e9 / 8 = 138 GB per GPU even split eight ways, so without
  // sharding the states (ZeRO-3) or the activations (recomputation, sequence parallelism, fused
  // attention) nothing fits.
  const std::string base = "compare --workload " + (kSource / "workloads/llama-2-70b.yaml").string() +
                           " --platforms " + (kSource / "platforms/dgx-h100.yaml").string() +
                           " --set platform.accelerator.memory.capacity=192GB --global-batch 8 --micro-batch 1"
                           " --no-confirm --jobs 2";
  const double usable_B = 0.95 * 192e9;
  SECTION("the old search (no ZeRO, no recomputation, no sequence parallelism, unfused attention)") {
    // Without the memory knobs, nothing fits with 5 % of the memory free.
    const auto j = run_json(base + " --search zero_stage=0 --search recompute=none --search sequence_parallel=false"
                                   " --search attention=unfused");
    const auto& p = j.at("platforms")[0];
    CHECK(p.at("best").is_null());
    CHECK(p.at("status") != "ok");
    for (const auto& c : p.at("configurations_tried"))
      if (c.contains("memory")) CHECK(c.at("memory").at("total_B").get<double>() > usable_B);
  }
  SECTION("the full search") {
    const auto j = run_json(base);
    const auto& p = j.at("platforms")[0];
    REQUIRE(p.at("status") == "ok");
    const auto& best = p.at("best");
    const double parameters = best.at("parameters").get<double>();
    CHECK(16 * parameters / 8 > 0.7 * usable_B);  // the model states alone are most of the memory
    CHECK(best.at("memory").at("total_B").get<double>() <= usable_B);
    // It fits thanks to a knob the old search did not try.
    const auto& k = p.at("knobs");
    CHECK((k.at("zero_stage").get<int>() > 0 || k.at("recompute") != "none" || k.at("sequence_parallel") == true ||
           k.at("attention") == "fused"));
    // ZeRO-3 over 8 replicas, or tp 8 with full recomputation, are among the configurations that fit.
    bool zero3_or_tp8 = false;
    for (const auto& c : p.at("configurations_tried"))
      if (c.at("status") == "ok" && ((c.at("dp") == 8 && c.at("zero_stage") == 3) || c.at("tp") == 8))
        zero3_or_tp8 = true;
    CHECK(zero3_or_tp8);
  }
}
