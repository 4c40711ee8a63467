// The communication profile (report/CommProfile): per-axis data volumes per device and iteration
// against their closed forms — a ring all-reduce sends 2(p-1)/p of the buffer, ZeRO-3's
// reduce-scatter and two all-gathers 3(p-1)/p (1.5x plain data parallelism), a pipeline sends each
// micro-batch's activation forward and its gradient back across each of the p-1 boundaries.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "report/CommProfile.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;

namespace {

config::ScenarioSpec layout(int tp, int pp, int dp, int micro_batches) {
  config::ScenarioSpec s;
  s.name = "comm profile test";
  s.platform = test::switch_platform(tp * pp * dp, 100e9, 1e-6);
  s.workload = test::small_gpt();
  s.training.micro_batch = 1;
  s.training.global_batch = micro_batches * dp;
  s.parallelism.tp = tp;
  s.parallelism.pp = pp;
  s.parallelism.dp = dp;
  s.collectives.algorithm = config::CollectiveAlgorithm::Ring;
  return s;
}

struct Volumes {
  std::map<std::string, double> sent, payload;  // per axis, per device and iteration
  double gradient_B = 0;                         // the plan's gradient bytes per device
};

/// Runs `s` in a child process; the per-axis volumes come back as text.
Volumes volumes_of(const config::ScenarioSpec& s) {
  const std::string text = engine::run_forked([&] {
    const auto run = driver::run_scenario(s);
    const auto profile = report::build_comm_profile(run.step.plan, run.simulation, *run.collectives,
                                                    s.platform.device_count(), s.parallelism.zero_stage);
    std::map<std::string, std::pair<double, double>> by_axis;
    for (const auto& e : profile.events) {
      const double share = report::per_device_share(e, profile.devices);
      by_axis[e.axis].first += share * e.sent_B;
      by_axis[e.axis].second += share * e.payload_B;
    }
    std::ostringstream out;
    out.precision(17);
    out << run.step.gradient_bytes;
    for (const auto& [axis, v] : by_axis) out << ' ' << axis << ' ' << v.first << ' ' << v.second;
    return out.str();
  });
  std::istringstream in(text);
  Volumes v;
  in >> v.gradient_B;
  std::string axis;
  double sent = 0, payload = 0;
  while (in >> axis >> sent >> payload) {
    v.sent[axis] = sent;
    v.payload[axis] = payload;
  }
  return v;
}

}  // namespace

TEST_CASE("report::CommProfile: data parallelism sends 2(p-1)/p of the gradients, ZeRO-3 1.5 times that",
          "[report][comm]") {
  for (const int p : {2, 4}) {
    INFO("dp " << p);
    const auto plain = volumes_of(layout(1, 1, p, 2));
    CHECK(plain.sent.at("dp") == Approx(2.0 * (p - 1) / p * plain.gradient_B).epsilon(1e-9));
    CHECK(plain.sent.count("tp") == 0);
    auto z3 = layout(1, 1, p, 2);
    z3.parallelism.zero_stage = 3;
    const auto sharded = volumes_of(z3);
    // Every micro-batch's gradients are reduce-scattered (ZeRO-2/3), each unit's parameters
    // gathered for its forward and again for its backward: per micro-batch 3(p-1)/p of them.
    const double m = 2;
    CHECK(sharded.sent.at("zero") == Approx(m * 3.0 * (p - 1) / p * plain.gradient_B).epsilon(1e-9));
  }
}

TEST_CASE("report::CommProfile: a pipeline sends 2m(p-1)/p activations per device", "[report][comm]") {
  const auto& w = test::transformer(test::small_gpt());
  const double activation_B = 1.0 * w.seq_length * w.hidden * 2;  // micro-batch 1, bf16
  for (const auto& [p, m] : std::vector<std::pair<int, int>>{{2, 4}, {4, 8}}) {
    INFO("pp " << p << " m " << m);
    const auto v = volumes_of(layout(1, p, 1, m));
    CHECK(v.sent.at("pp") == Approx(2.0 * m * (p - 1) / p * activation_B).epsilon(1e-12));
    CHECK(v.payload.at("pp") == Approx(v.sent.at("pp")).epsilon(1e-12));
  }
}
