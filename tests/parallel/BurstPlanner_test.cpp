// The burst planner (docs/burst-parallelism.md): where samples live between layers of different
// widths, the planner's cost equations, and its dynamic programme against enumeration of every
// assignment of widths to layers.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "parallel/BurstPlanner.hpp"

using namespace clearfog;
using parallel::BurstProblem;

namespace {

/// Layers with random times that shrink with the width by a random scaling exponent in [0, 1]
/// (0: no speedup, 1: perfect), random gradients and activations.
BurstProblem random_problem(std::mt19937& rng, std::size_t layers) {
  BurstProblem p;
  p.widths = {1, 2, 4, 8};
  p.global_batch = 64;
  p.amplification_limit = 2.0;
  p.link_Bps = 10e9;
  p.latency_s = 5e-6;
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t l = 0; l < layers; ++l) {
    parallel::BurstLayer layer;
    layer.name = "L" + std::to_string(l);
    const double t1 = 1e-3 * (0.1 + u(rng)), scaling = u(rng);
    for (int w : p.widths) {
      layer.forward_s.push_back(t1 / std::pow(w, scaling));
      layer.backward_s.push_back(2 * t1 / std::pow(w, scaling));
    }
    layer.gradient_B = 1e6 * u(rng) * (u(rng) < 0.5 ? 0 : 1);
    layer.output_B_per_sample = 1e5 * u(rng);
    p.layers.push_back(layer);
  }
  return p;
}

/// Every assignment of widths to layers, the same constraint and costs: the best time.
double enumerated_best_s(const BurstProblem& p) {
  const std::size_t L = p.layers.size(), W = p.widths.size();
  std::vector<std::size_t> w(L, 0);
  double best = std::numeric_limits<double>::infinity();
  const std::function<void(std::size_t)> visit = [&](std::size_t l) {
    if (l == L) {
      double t = 0;
      for (std::size_t i = 0; i < L; ++i) {
        t += p.layer_s(i, w[i]);
        if (i > 0) t += p.reshard_s(i - 1, w[i - 1], w[i]);
      }
      best = std::min(best, t);
      return;
    }
    for (std::size_t k = 0; k < W; ++k) {
      if (k > 0 && p.amplification(l, k) > p.amplification_limit) continue;
      w[l] = k;
      visit(l + 1);
    }
  };
  visit(0);
  return best;
}

}  // namespace

TEST_CASE("parallel::samples_moved: sample s lives on device s mod width", "[parallel][burst]") {
  // 16 samples from 2 to 4 devices: device 0 holds 0, 2, ..., 14 and keeps those = 0 mod 4; those
  // = 2 mod 4 (2, 6, 10, 14) go to device 2; nothing goes to devices 1 or 3.
  CHECK(parallel::samples_moved(16, 2, 0, 4, 0) == 4);
  CHECK(parallel::samples_moved(16, 2, 0, 4, 2) == 4);
  CHECK(parallel::samples_moved(16, 2, 0, 4, 1) == 0);
  CHECK(parallel::samples_moved(16, 2, 1, 4, 3) == 4);
  // Back to one device: everything device 3 of 4 holds.
  CHECK(parallel::samples_moved(16, 4, 3, 1, 0) == 4);
  // Widths that do not divide each other: 12 samples, 3 to 2 devices; device 1 holds 1, 4, 7, 10,
  // of which 4 and 10 are even.
  CHECK(parallel::samples_moved(12, 3, 1, 2, 0) == 2);
}

TEST_CASE("parallel::BurstProblem: a layer's estimate is its passes plus a ring all-reduce", "[parallel][burst]") {
  BurstProblem p;
  p.widths = {1, 4};
  p.global_batch = 8;
  p.link_Bps = 10e9;
  p.latency_s = 1e-5;
  p.layers.push_back({"conv", {4e-3, 1e-3}, {8e-3, 2e-3}, 2e8, 1e6});
  CHECK(p.layer_s(0, 0) == Approx(12e-3));  // one device: no all-reduce
  CHECK(p.layer_s(0, 1) == Approx(3e-3 + 2.0 * 3 / 4 * 2e8 / 10e9 + 2 * 3 * 1e-5));
  CHECK(p.amplification(0, 1) == Approx(4 * p.layer_s(0, 1) / 12e-3));
  // Overlapped with the backward, the all-reduce leaves the estimate but not the device-seconds.
  const double amplification = p.amplification(0, 1);
  p.sync_overlapped = true;
  CHECK(p.layer_s(0, 1) == Approx(3e-3));
  CHECK(p.amplification(0, 1) == Approx(amplification));
  // 1 -> 4 devices: device 0 sends 6 of its 8 samples (2 to each other device), activation and
  // gradient, one latency each way.
  CHECK(p.reshard_s(0, 0, 1) == Approx(2 * (6 * 1e6 / 10e9 + 1e-5)));
  CHECK(p.reshard_s(0, 1, 1) == 0);
  // Inside a node the node's link carries it.
  p.node_devices = 4;
  p.node_link_Bps = 100e9;
  p.node_latency_s = 0;
  CHECK(p.sync_s(0, 1) == Approx(2.0 * 3 / 4 * 2e8 / 100e9));
}

TEST_CASE("parallel::plan_burst: the dynamic programme finds the enumerated optimum", "[parallel][burst]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const auto p = random_problem(rng, 5);
    const auto plan = parallel::plan_burst(p);
    CHECK(plan.estimated_s == Approx(enumerated_best_s(p)).epsilon(1e-12));
    for (std::size_t l = 0; l < p.layers.size(); ++l)
      CHECK((plan.width_index[l] == 0 || p.amplification(l, plan.width_index[l]) <= p.amplification_limit));
  }
}

TEST_CASE("parallel::plan_burst: layers that scale go wide, layers that do not stay narrow", "[parallel][burst]") {
  BurstProblem p;
  p.widths = {1, 2, 4, 8};
  p.global_batch = 64;
  p.link_Bps = 1e12;
  p.latency_s = 0;
  // The flat layer's amplification is its width (no speedup), so under 1.5 only width 1 is allowed;
  // the scaling layer's is 1 at every width.
  p.amplification_limit = 1.5;
  parallel::BurstLayer scales{"scales", {}, {}, 0, 0}, flat{"flat", {}, {}, 0, 0};
  for (int w : p.widths) {
    scales.forward_s.push_back(8e-3 / w), scales.backward_s.push_back(16e-3 / w);
    flat.forward_s.push_back(1e-3), flat.backward_s.push_back(2e-3);
  }
  p.layers = {scales, flat};
  const auto plan = parallel::plan_burst(p);
  CHECK(p.widths[plan.width_index[0]] == 8);
  CHECK(p.widths[plan.width_index[1]] == 1);
  // Plain data parallelism puts both on 8: the flat layer's time does not shrink.
  const auto dp = parallel::plan_uniform(p, 3);
  CHECK(dp.estimated_s == Approx(24e-3 / 8 + 3e-3));
  CHECK(dp.device_s == Approx(8 * (24e-3 / 8 + 3e-3)));
}
