// The answers docs/tutorials/ states, asserted on the tutorials' own sweep files
// (scenarios/tutorials/). Each expectation is derived from a closed form or from the reasoning the
// tutorial teaches, never from the program's output: if the simulator changes its mind, the
// tutorial's text must change with it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "sweep/SweepSpec.hpp"

using namespace clearfog;

namespace {

/// The figures a tutorial talks about, for one sweep point.
struct PointFigures {
  double step_s = 0, tp_comm_s = 0, bubble = 0, ideal_bubble = 0;
  double weights_B = 0, gradients_B = 0, optimizer_B = 0, activations_B = 0;
  bool fits = false;
  std::vector<double> stage_busy_s;
};

PointFigures run_point(const config::ScenarioSpec& scenario) {
  std::istringstream in(engine::run_forked([&] {
    const auto m = driver::run_scenario(scenario).metrics;
    std::ostringstream out;
    out.precision(17);
    out << m.step_time_s << ' ' << m.tp_comm_s << ' ' << m.bubble_fraction << ' ' << m.ideal_bubble_fraction << ' '
        << m.memory.weights_B << ' ' << m.memory.gradients_B << ' ' << m.memory.optimizer_B << ' '
        << m.memory.activations_B << ' ' << m.memory.fits() << ' ' << m.stage_busy_s.size();
    for (double s : m.stage_busy_s) out << ' ' << s;
    return out.str();
  }));
  PointFigures f;
  std::size_t stages = 0;
  in >> f.step_s >> f.tp_comm_s >> f.bubble >> f.ideal_bubble >> f.weights_B >> f.gradients_B >> f.optimizer_B >>
      f.activations_B >> f.fits >> stages;
  f.stage_busy_s.resize(stages);
  for (double& s : f.stage_busy_s) in >> s;
  return f;
}

/// Every point of a tutorial sweep, keyed by its axis values joined with '|'.
std::map<std::string, PointFigures> run_tutorial(const std::string& file) {
  const auto spec = sweep::load_sweep(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/tutorials/" + file);
  std::map<std::string, PointFigures> points;
  for (const auto& point : spec.points()) {
    std::string key;
    for (const auto& [axis, value] : point.axes) key += (key.empty() ? "" : "|") + value;
    points[key] = run_point(config::load_scenario(spec.base, point.overrides));
  }
  return points;
}

/// One cell of a tutorial's answer table: "0.569, 43.2 % [42.9 %]" (step time in s, simulated and
/// closed-form bubble in %).
struct StatedCell {
  double step_s = 0, bubble_pct = 0, ideal_pct = 0;
};

/// The table rows of docs/tutorials/`file` that start with a number: that number, then its cells.
std::map<int, std::vector<StatedCell>> stated_table(const std::string& file) {
  std::ifstream in(std::string(CLEARFOG_SOURCE_DIR) + "/docs/tutorials/" + file);
  REQUIRE(in);
  const std::regex row(R"(^\| (\d+) \|(.*)$)");
  const std::regex cell(R"(([0-9.]+), ([0-9.]+) % \[([0-9.]+) %\])");
  std::map<int, std::vector<StatedCell>> rows;
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (!std::regex_match(line, m, row)) continue;
    auto& cells = rows[std::stoi(m[1].str())];
    const std::string rest = m[2].str();
    for (auto it = std::sregex_iterator(rest.begin(), rest.end(), cell); it != std::sregex_iterator(); ++it)
      cells.push_back({std::stod((*it)[1].str()), std::stod((*it)[2].str()), std::stod((*it)[3].str())});
  }
  return rows;
}

/// Whether `stated` is `value` written with `decimals` decimals, rounded to nearest.
bool rounded(double stated, double value, int decimals) {
  return std::abs(stated - value) <= 0.5 * std::pow(10.0, -decimals) + 1e-9;
}

}  // namespace

TEST_CASE("tutorial 1: data parallelism wins where the model fits — tensor parallelism needs NVSwitch",
          "[tutorials][simulation]") {
  const auto points = run_tutorial("01-parallelism.yaml");
  REQUIRE(points.size() == 12);
  const std::string nvswitch = "../../platforms/dgx-a100.yaml|", pcie = "../../platforms/pcie-gen4-8gpu.yaml|";
  const auto at = [&](const std::string& platform, const std::string& layout) {
    for (const auto& [key, f] : points)
      if (key.rfind(platform, 0) == 0 && key.find(layout) != std::string::npos) return f;
    FAIL("no point " << platform << layout);
    return PointFigures{};
  };
  const std::string dp8 = "{dp: 8,", tp8 = "tp: 8,", pp4 = "{dp: 2, tp: 1, pp: 4";
  for (const auto& platform : {nvswitch, pcie}) {
    INFO(platform);
    // The gradient all-reduce hides behind the backward pass; no layout computes less per GPU.
    for (const auto& [key, f] : points)
      if (key.rfind(platform, 0) == 0) {
        CHECK(f.fits);
        CHECK(at(platform, dp8).step_s <= f.step_s);
        // Tensor parallelism over all 8 GPUs puts two collectives per layer and pass on the critical path.
        CHECK(at(platform, tp8).step_s >= f.step_s);
        // ...but holds the least: 1/8 of the weights and optimizer states per GPU.
        CHECK(at(platform, tp8).weights_B + at(platform, tp8).optimizer_B <= f.weights_B + f.optimizer_B);
      }
  }
  // Without NVSwitch, per-layer activations collectives hurt far more than per-iteration gradients
  // or stage-to-stage activations: TP 8 slows down more than DP 8 or PP 4 x DP 2.
  const auto slowdown = [&](const std::string& layout) { return at(pcie, layout).step_s / at(nvswitch, layout).step_s; };
  CHECK(slowdown(tp8) > slowdown(dp8));
  CHECK(slowdown(tp8) > slowdown(pp4));
  CHECK(at(pcie, tp8).tp_comm_s > 2 * at(nvswitch, tp8).tp_comm_s);
  // The pipeline cannot beat its own closed-form bubble (p - 1)/(m + p - 1), m = 32/2 micro-batches.
  CHECK(at(nvswitch, pp4).bubble >= 3.0 / (16 + 3) - 1e-9);
}

TEST_CASE("tutorial 2: the bubble shrinks with micro-batches — interleaving and zero-bubble shrink it further",
          "[tutorials][simulation]") {
  const auto points = run_tutorial("02-pipeline.yaml");
  REQUIRE(points.size() == 16);
  const auto at = [&](const std::string& schedule, int m) {
    return points.at("{schedule: " + schedule + ", virtual_stages: " + (schedule == "interleaved" ? "3" : "1") +
                     "}|" + std::to_string(m));
  };
  const int p = 4;
  for (int m : {4, 8, 16, 32}) {
    INFO("m = " << m);
    // GPipe and 1F1B idle the same (p - 1)/(m + p - 1); 1F1B keeps at most p micro-batches' activations.
    CHECK(at("gpipe", m).ideal_bubble == Approx(double(p - 1) / (m + p - 1)));
    CHECK(at("gpipe", m).step_s == Approx(at("1f1b", m).step_s).epsilon(1e-3));
    CHECK(at("1f1b", m).activations_B == Approx(at("1f1b", 4).activations_B));
    CHECK(at("gpipe", m).activations_B == Approx(at("gpipe", 4).activations_B * m / 4));
    // Interleaving (v = 3) divides the ramp by v; ZB-H1 fills it with weight-gradient passes.
    CHECK(at("interleaved", m).step_s < at("1f1b", m).step_s);
    CHECK(at("zb-h1", m).step_s < at("1f1b", m).step_s);
    for (const auto* s : {"gpipe", "1f1b", "interleaved", "zb-h1"}) CHECK(at(s, m).bubble >= at(s, m).ideal_bubble - 1e-9);
  }
  for (const auto* s : {"gpipe", "1f1b", "interleaved", "zb-h1"})
    for (int m : {4, 8, 16}) CHECK(at(s, 2 * m).bubble < at(s, m).bubble);
  // The last stage also runs the output layer (2sVh FLOPs per sequence forward against 9 layers of
  // 24sh^2(1 + s/6h)): it is the busiest stage, and the others wait for it once per micro-batch, so
  // the simulated bubble exceeds the closed form more as m grows.
  const double s = 2048, h = 4096, V = 51200;
  const double head_share = 2 * s * V * h / (9 * 24 * s * h * h * (1 + s / (6 * h)));
  const auto& busy = at("1f1b", 32).stage_busy_s;
  REQUIRE(busy.size() == 4);
  CHECK(busy[3] / busy[1] == Approx(1 + head_share).epsilon(0.02));
  CHECK(at("1f1b", 32).bubble - at("1f1b", 32).ideal_bubble > at("1f1b", 4).bubble - at("1f1b", 4).ideal_bubble);

  // The answer table states every point: its step time (3 decimals), bubble and closed form (1
  // decimal, in %), each rounded to nearest. The closed forms: (p - 1)/(m + p - 1) for GPipe and
  // 1F1B, (p - 1)/(v m + p - 1) interleaved, ZB-H1's (p - 1)(F + B - 2W) over the step from the
  // model's pass times.
  const auto table = stated_table("02-pipeline.md");
  REQUIRE(table.size() == 4);
  const int v = 3;
  for (const auto& [m, cells] : table) {
    REQUIRE(cells.size() == 4);
    const std::vector<std::pair<std::string, double>> columns = {
        {"gpipe", double(p - 1) / (m + p - 1)},
        {"1f1b", double(p - 1) / (m + p - 1)},
        {"interleaved", double(p - 1) / (v * m + p - 1)},
        {"zb-h1", at("zb-h1", m).ideal_bubble}};
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const auto& [schedule, ideal] = columns[c];
      const auto& f = at(schedule, m);
      INFO(schedule << " at m = " << m << ": stated " << cells[c].step_s << ", " << cells[c].bubble_pct << " % ["
                    << cells[c].ideal_pct << " %], simulated " << f.step_s << ", " << 100 * f.bubble << " % ["
                    << 100 * ideal << " %]");
      CHECK(rounded(cells[c].step_s, f.step_s, 3));
      CHECK(rounded(cells[c].bubble_pct, 100 * f.bubble, 1));
      CHECK(rounded(cells[c].ideal_pct, 100 * ideal, 1));
    }
  }
}

TEST_CASE("tutorial 6: ZeRO divides model states, recomputation divides activations",
          "[tutorials][simulation]") {
  const auto points = run_tutorial("06-memory.yaml");
  REQUIRE(points.size() == 12);
  const auto at = [&](int zero, const std::string& recompute) { return points.at(std::to_string(zero) + "|" + recompute); };
  // Mixed-precision Adam as Megatron runs bf16: 2 + 4 + 12 bytes per parameter (the ZeRO paper's
  // terms, Rajbhandari et al. Fig. 1, with fp32 gradients: Megatron Core's distributed-optimizer
  // table, 18 bytes), each ZeRO stage sharding one more term over dp = 8.
  const double psi = at(0, "none").weights_B / 2, dp = 8;
  CHECK(at(0, "none").gradients_B == Approx(4 * psi));
  CHECK(at(0, "none").optimizer_B == Approx(12 * psi));
  CHECK(at(1, "none").optimizer_B == Approx(12 * psi / dp));
  CHECK(at(2, "none").gradients_B == Approx(4 * psi / dp));
  CHECK(at(3, "none").weights_B == Approx(2 * psi / dp));
  // Korthikanti et al. 2022, Eq. 1-2 with t = 1: selective recomputation drops the attention core's
  // 5as/h * sbh bytes per layer and keeps 34 sbh; full keeps only each layer's 2 sbh input.
  const double s = 2048, b = 2, h = 4096, a = 32, L = 36;
  const double sbh = s * b * h;
  CHECK(at(1, "none").activations_B - at(1, "selective").activations_B == Approx(L * 5 * a * s / h * sbh).epsilon(0.01));
  CHECK(at(1, "selective").activations_B - at(1, "full").activations_B ==
        Approx(L * (34 - 2) * sbh).epsilon(0.05));
  // What fits in 80 GB: nothing without ZeRO (the optimizer alone is 12 * 7.5 B bytes); nothing
  // without recomputation (activations alone approach the capacity); everything else.
  for (int zero : {0, 1, 2, 3})
    for (const auto* r : {"none", "selective", "full"}) {
      INFO("zero " << zero << " recompute " << r);
      CHECK(at(zero, r).fits == (zero > 0 && std::string(r) != "none"));
    }
  // Recomputation costs time: full recompute re-runs every forward.
  CHECK(at(1, "full").step_s > at(1, "selective").step_s);
  CHECK(at(1, "selective").step_s > at(1, "none").step_s);
}
